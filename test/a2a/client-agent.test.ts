/**
 * The A2A client (issue 30, item 2) between two Manifold networks: a remote agent served with
 * `a2a: true` behind a bearer token over real tools, and a local agent whose workflows and planner use
 * it as a `kind: a2a` component. Every call is real HTTP on loopback through the official SDK client.
 */
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { AgentCard } from "@a2a-js/sdk";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { closeA2aClient, createA2aClient, heldA2aAgents } from "../../runtime/a2a-client/index.js";
import { createOrchestrator, type Orchestrator } from "../../runtime/orchestration/index.js";
import type { WorkflowSpec } from "../../runtime/spec/index.js";
import { memoryLog } from "../orchestration/support.js";
import { rejection } from "../support/errors.js";
import { eventually } from "../support/wait.js";
import { REMOTE_TOKEN, remoteSpec, startRemote, TOKEN_ENV, type Remote } from "./client-support.js";

interface Context {
  remote: Remote;
  local: Orchestrator;
  sdk: Client;
}

const test = suite<Context>("a local agent using a remote agent over A2A", {} as Context);

const env = { [TOKEN_ENV]: REMOTE_TOKEN };

const listed = async (sdk: Client): Promise<string[]> =>
  (await sdk.listTasks({ tenant: "", contextId: "", status: 0, pageSize: 100, pageToken: "", statusTimestampAfter: undefined })).tasks.map((t) => t.id);

const remoteStep = (name: string, capability: string, inputs: Record<string, unknown>): WorkflowSpec["steps"][number] => ({
  name,
  component: "remote",
  componentKind: "tool",
  capability,
  inputs,
  dependsOn: [],
  retry: 0,
  onError: "fail",
});

const delegate: WorkflowSpec = {
  name: "delegate",
  version: "1.0",
  description: "Doubles a number on the remote agent",
  inputs: [{ name: "a", type: "number", required: true }],
  steps: [remoteStep("twice", "double", { a: "${inputs.a}" })],
  outputs: [{ name: "result", value: "${steps.twice.output.outputs.doubled}", type: { type: "number" }, required: true }],
};
const one = (capability: string, inputs: Record<string, unknown> = {}): WorkflowSpec => ({
  name: `one-${capability}`,
  version: "1.0",
  description: `calls remote.${capability}`,
  inputs: [],
  steps: [remoteStep("only", capability, inputs)],
  outputs: [],
});

test.before(async (context) => {
  context.remote = await startRemote();
  const url = context.remote.agent.url;
  context.local = createOrchestrator({ components: [remoteSpec(url)], env, executionStore: false, log: memoryLog().log });
  const authed: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${REMOTE_TOKEN}`);
    return fetch(input, { ...init, headers });
  };
  const card = AgentCard.fromJSON({ name: "remote", supportedInterfaces: [{ url: `${url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] });
  context.sdk = await new ClientFactory({
    ...ClientFactoryOptions.default,
    transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
  }).createFromAgentCard(card);
});

test.after(async ({ local, remote }) => {
  await local.close();
  await remote.close();
});

test("a workflow step delegates to a remote workflow skill: the task is followed to completion and its typed outputs flow on", async ({ local, remote }) => {
  const result = await local.runWorkflow(delegate, { a: 21 });
  assert.is(result.status, "completed", JSON.stringify(result.steps));
  assert.equal(result.outputs, { result: 42 });
  assert.ok(remote.tools.calls.some((c) => c.capability === "add"));
});

test("cancellation propagates: the local run aborted, the remote task is canceled (read back with GetTask) and its tool call aborted", async ({
  local,
  remote,
  sdk,
}) => {
  const before = await listed(sdk);
  const controller = new AbortController();
  const run = local.runWorkflow(one("nap", { ms: 30_000 }), {}, { signal: controller.signal });
  await eventually("the remote sleep step running", () => remote.tools.calls.some((c) => c.capability === "sleep" && c.end === undefined));
  controller.abort();
  const result = await run;
  assert.is.not(result.status, "completed");
  const taskId = (await listed(sdk)).find((id) => !before.includes(id));
  assert.ok(taskId, "the remote task");
  await eventually("the remote task canceled", async () => (await sdk.getTask({ tenant: "", id: taskId!, historyLength: undefined })).status?.state === 5);
  await eventually("the remote sleep aborted", () => remote.tools.calls.find((c) => c.capability === "sleep")?.aborted === true);
});

test("a remote failure is a failed step with the remote error (not INTERNAL), named by the remote skill", async ({ local }) => {
  const result = await local.runWorkflow(one("breaks"), {});
  const step = result.steps[0]!;
  assert.is(step.status, "failed");
  assert.ok(step.error, JSON.stringify(step));
  assert.is.not(step.error!.code, "INTERNAL");
  assert.match(step.error!.message, /remote\.breaks/);
});

test("a remote step waiting for a human: a HANDLER_ERROR naming the remote task and checkpoint, nothing run remotely", async ({ remote }) => {
  const client = createA2aClient(remoteSpec(remote.agent.url), { env });
  const error = await rejection(client["pay"]!({ a: 3 }));
  assert.is(error.code, "HANDLER_ERROR");
  assert.match(String(error.details?.find((d) => d.pointer === "/checkpoint_id")?.message), /^cp-/);
  assert.ok(error.details?.some((d) => d.pointer === "/task_id"));
  assert.not.ok(remote.tools.calls.some((c) => c.capability === "echo"));
  await closeA2aClient(client);
});

test("bearer auth: the token from tokenEnv is sent; a wrong one is UNAUTHORIZED, a missing one UNAUTHORIZED without sending", async ({ remote }) => {
  const spec = remoteSpec(remote.agent.url);
  const good = createA2aClient(spec, { env });
  assert.equal(((await good["double"]!({ a: 2 })) as any).outputs, { doubled: 4 });
  const wrong = createA2aClient(spec, { env: { [TOKEN_ENV]: "nope" }, url: `${remote.agent.url}/a2a` });
  assert.is((await rejection(wrong["double"]!({ a: 2 }))).code, "UNAUTHORIZED");
  const unset = createA2aClient(remoteSpec(remote.agent.url, { tokenEnv: "A2A_TEST_UNSET_TOKEN" }), { env: {} });
  const missing = await rejection(unset["double"]!({ a: 2 }));
  assert.is(missing.code, "UNAUTHORIZED");
  assert.not.match(missing.message, new RegExp(REMOTE_TOKEN));
  for (const client of [good, wrong, unset]) await closeA2aClient(client);
});

test("an input that does not match the skill's fields is INVALID_INPUT, refused before anything is sent", async ({ remote }) => {
  const client = createA2aClient(remoteSpec(remote.agent.url), { env });
  const error = await rejection(client["double"]!({ a: "x" }));
  assert.is(error.code, "INVALID_INPUT");
  await closeA2aClient(client);
});

test("an unreachable remote agent is NETWORK_ERROR (retryable); the shared client is released with its last holder", async ({ remote }) => {
  const held = () => heldA2aAgents().filter((h) => h.name === "remote").length;
  const before = held();
  const client = createA2aClient(remoteSpec("http://127.0.0.1:9"), { env });
  const error = await rejection(client["double"]!({ a: 1 }));
  assert.is(error.code, "NETWORK_ERROR");
  assert.is(error.retryable, true);
  assert.is(held(), before + 1);
  await closeA2aClient(client);
  assert.is(held(), before);
  void remote;
});

test.run();
