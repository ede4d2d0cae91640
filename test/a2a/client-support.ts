/**
 * The remote side of the A2A client suites: a Manifold agent served with `a2a: true` (bearer auth, HITL
 * on a sensitive `echo`) over real tools on loopback, and the `kind: a2a` spec a local agent uses to
 * reach it, built as the lock would give it (a capability per remote skill, endpoint `a2a:<skill id>`).
 */
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import type { CapabilitySpec, ComponentSpec, FieldsSpec, WorkflowSpec } from "../../runtime/spec/index.js";
import { SENSITIVE_ECHO } from "../hitl/support.js";
import { double } from "../mcp/agent-support.js";
import { agentSpec, startTools, workflowStep, type Tools } from "../orchestration/support.js";
import { nap } from "./workflows.js";
import { QUIET_AGENT } from "../support/serve.js";

export const REMOTE_TOKEN = "a2a-remote-token";
export const TOKEN_ENV = "A2A_TEST_REMOTE_TOKEN";

const pay: WorkflowSpec = {
  name: "pay",
  version: "1.0",
  description: "Charges an amount (a human approves)",
  inputs: [{ name: "a", type: "number", required: true }],
  steps: [workflowStep("charge", "echo", { amount: "${inputs.a}" })],
  outputs: [{ name: "charged", value: "${steps.charge.output.amount}", type: { type: "number" }, required: true }],
};
const breaks: WorkflowSpec = {
  name: "breaks",
  version: "1.0",
  description: "Always fails",
  inputs: [],
  steps: [workflowStep("boom", "fail", {})],
  outputs: [],
};

export interface Remote {
  readonly tools: Tools;
  readonly agent: RunningComponent;
  close(): Promise<void>;
}

/** The remote network: its tools and its agent, serving A2A behind a bearer token. */
export async function startRemote(): Promise<Remote> {
  const tools = await startTools();
  const base = agentSpec("remote-agent", { workflows: [double, nap, pay, breaks] });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl: SENSITIVE_ECHO, a2a: true } };
  const agent = await serveAgent(spec, tools.specs, {
    ...QUIET_AGENT,
    auth: { verify: (token: string) => (token === REMOTE_TOKEN ? "local-agent" : false) },
    orchestration: { baseUrls: tools.baseUrls, executionStore: false },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
  } as never);
  return {
    tools,
    agent,
    async close() {
      await agent.close();
      await tools.close();
    },
  };
}

const fields = (required: FieldsSpec["required"]): FieldsSpec => ({ required, optional: [] });

function skill(id: string, input: FieldsSpec | undefined, output: FieldsSpec | undefined): CapabilitySpec {
  return {
    name: id,
    key: id,
    description: `remote skill ${id}`,
    type: "tool",
    internal: false,
    endpoint: `a2a:${id}`,
    ...(input === undefined ? {} : { input }),
    ...(output === undefined ? {} : { output }),
    a2aSkill: { id },
  };
}

/** What gen makes of the remote agent's card: `double` typed, the others text out, natural mode text in. */
export function remoteSpec(baseUrl: string, { tokenEnv = TOKEN_ENV as string | undefined, timeoutMs = 20_000 } = {}): ComponentSpec {
  const outputs = { name: "outputs", type: "object" as const, fields: fields([{ name: "doubled", type: "number" }]) };
  return {
    kind: "tool",
    name: "remote",
    description: "a remote Manifold agent over A2A",
    version: "1.0.0",
    capabilities: [
      skill("double", fields([{ name: "a", type: "number" }]), fields([outputs])),
      skill("nap", fields([{ name: "ms", type: "number" }]), undefined),
      skill("pay", fields([{ name: "a", type: "number" }]), undefined),
      skill("breaks", undefined, undefined),
      skill("natural", fields([{ name: "text", type: "string" }]), fields([{ name: "text", type: "string" }])),
    ],
    a2aAgent: {
      cardUrl: `${baseUrl}/.well-known/agent-card.json`,
      url: `${baseUrl}/a2a`,
      ...(tokenEnv === undefined ? {} : { tokenEnv }),
      timeoutMs,
      hash: "sha256:test",
    },
  };
}
