/**
 * M2 of issue 32: a resume that fails before the approved step ran gives the approval back. Real
 * processes' worth of parts on loopback: a served agent, a `bank` tool on a fixed port that a test
 * stops (connections refused) and starts again on the same port. A resume while the tool is down
 * fails and leaves the checkpoint `approved` with its attempt counted; once the tool is back, of two
 * concurrent resumes exactly one runs the charge, once. A resume whose charge reached the tool stays
 * `resumed` (never run twice), and five failed resumes make the checkpoint `failed`.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import { serveComponent, type RunningComponent } from "../../runtime/component/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { type CheckpointStore, createMemoryCheckpointStore, type HitlSpec } from "../../runtime/hitl/index.js";
import { createCaller, keepAliveTransport } from "../../runtime/outbound/index.js";
import { createExecutor, type StepInterceptor, wasNeverSent } from "../../runtime/orchestration/index.js";
import type { ComponentSpec, WorkflowSpec } from "../../runtime/spec/index.js";
import { freePort } from "../support/ports.js";
import { agentSpec, capability, workflowStep } from "../orchestration/support.js";
import { QUIET_AGENT } from "../support/serve.js";

const bankSpec: ComponentSpec = {
  kind: "tool",
  name: "bank",
  description: "a tool whose charge is the sensitive action",
  version: "1.0.0",
  capabilities: [
    capability("charge", { required: [{ name: "amount", type: "number" }], optional: [] }, { required: [{ name: "charged", type: "number" }], optional: [] }),
  ],
};

/** The bank: counts the charges that reached its handler; `failing` makes the handler fail after it was reached. */
interface Bank {
  charges: number[];
  failing: boolean;
  running: RunningComponent | undefined;
  readonly port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function createBank(): Promise<Bank> {
  const bank: Bank = {
    charges: [],
    failing: false,
    running: undefined,
    port: await freePort(),
    async start() {
      bank.running = await serveComponent(bankSpec, {
        port: bank.port,
        host: "127.0.0.1",
        registry: false,
        handleSignals: false,
        log: () => undefined,
        drainTimeoutMs: 200,
        handlers: {
          charge: async (input: { amount: number }) => {
            bank.charges.push(input.amount);
            if (bank.failing) throw new ManifoldError("HANDLER_ERROR", "the bank failed after taking the charge");
            return { charged: input.amount };
          },
        },
      } as never);
    },
    async stop() {
      await bank.running?.close();
      bank.running = undefined;
    },
  };
  await bank.start();
  return bank;
}

const pay: WorkflowSpec = {
  name: "pay",
  version: "1.0",
  inputs: [{ name: "amount", type: "number", required: true }],
  steps: [workflowStep("charge", "charge", { amount: "${inputs.amount}" }, { component: "bank" })],
  outputs: [{ name: "charged", value: "${steps.charge.output.charged}", type: { type: "number" }, required: true }],
};

const HITL: HitlSpec = { planApproval: false, sensitiveCapabilities: ["charge"], expiryMs: 60_000, defaultAction: "reject" };

interface Agent {
  readonly running: RunningComponent;
  post(path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

async function startAgent(
  bank: Bank,
  store: CheckpointStore,
  { name = `payer-${Math.random().toString(16).slice(2, 8)}`, hitl = true }: { name?: string; hitl?: boolean } = {},
): Promise<Agent> {
  const base = agentSpec(name, { workflows: [pay] });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, uses: ["bank"], ...(hitl ? { hitl: HITL } : {}) } };
  const running = await serveAgent(spec, [bankSpec], {
    ...QUIET_AGENT,
    orchestration: { baseUrls: { bank: `http://127.0.0.1:${bank.port}` }, executionStore: false },
    hitl: { store, expiry: false },
  } as never);
  return {
    running,
    post: async (path, body = {}) => {
      const response = await fetch(running.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    },
  };
}

const test = suite<{ bank: Bank; store: CheckpointStore; agent: Agent }>("hitl: a failed resume gives the approval back", {} as never);
test.before(async (context) => {
  context.bank = await createBank();
  context.store = createMemoryCheckpointStore();
  context.agent = await startAgent(context.bank, context.store);
});
test.after(async ({ bank, agent }) => {
  await agent.running.close();
  await bank.stop();
});
test.before.each(async ({ bank }) => {
  bank.charges.length = 0;
  bank.failing = false;
  if (bank.running === undefined) await bank.start();
});

async function approvedCheckpoint(agent: Agent, amount: number): Promise<string> {
  const paused = await agent.post("/orchestrate/pay", { amount });
  assert.is(paused.status, 202, JSON.stringify(paused.body));
  const id: string = paused.body.checkpoint_id;
  assert.is((await agent.post("/hitl/command", { checkpoint_id: id, action: "approve" })).status, 200);
  return id;
}

test("the tool down: the resume fails and the checkpoint is approved again (attempts 1); back up, of two concurrent resumes one charges, once", async ({
  bank,
  store,
  agent,
}) => {
  const id = await approvedCheckpoint(agent, 424_242);
  await bank.stop();
  const failed = await agent.post(`/hitl/resume/${id}`);
  assert.ok(failed.status >= 500, `the resume failed: ${JSON.stringify(failed.body)}`);
  const after = (await store.get(id))!;
  assert.equal([after.status, after.attempts, after.resumed_at], ["approved", 1, undefined], "the approval is not used up");
  assert.is(bank.charges.length, 0);

  await bank.start();
  const [a, b] = await Promise.all([agent.post(`/hitl/resume/${id}`), agent.post(`/hitl/resume/${id}`)]);
  assert.equal([a.status, b.status].sort(), [200, 409], JSON.stringify([a.body, b.body]));
  assert.equal((a.status === 200 ? a : b).body.outputs, { charged: 424_242 });
  assert.equal(bank.charges, [424_242], "the approved charge ran exactly once");
  assert.is((await store.get(id))!.status, "resumed");
  assert.is((await agent.post(`/hitl/resume/${id}`)).status, 409, "and never again");
});

test("a resume whose approved step reached the tool stays resumed: the charge is never run twice", async ({ bank, store, agent }) => {
  const id = await approvedCheckpoint(agent, 7);
  bank.failing = true;
  const failed = await agent.post(`/hitl/resume/${id}`);
  assert.ok(failed.status >= 400, JSON.stringify(failed.body));
  assert.equal(bank.charges, [7]);
  assert.is((await store.get(id))!.status, "resumed", "the step ran: the claim is kept");
  bank.failing = false;
  const again = await agent.post(`/hitl/resume/${id}`);
  assert.equal([again.status, again.body.error.code], [409, "CONFLICT"]);
  assert.equal(bank.charges, [7], "not charged a second time");
});

test("five resumes failing before the charge make the checkpoint failed; it never resumes after", async ({ bank, store, agent }) => {
  const id = await approvedCheckpoint(agent, 5);
  await bank.stop();
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    const failed = await agent.post(`/hitl/resume/${id}`);
    assert.ok(failed.status >= 500, JSON.stringify(failed.body));
  }
  const after = (await store.get(id))!;
  assert.equal([after.status, after.attempts], ["failed", 5]);
  await bank.start();
  const refused = await agent.post(`/hitl/resume/${id}`);
  assert.equal([refused.status, refused.body.error.details[0].status], [409, "failed"]);
  assert.is(bank.charges.length, 0);
});

test("wasNeverSent: an unresolvable target and a refused connection are never sent; an answer is", async ({ bank }) => {
  const seen: Record<string, boolean> = {};
  const probe: StepInterceptor = {
    name: "probe",
    afterStep: ({ step, error }) => {
      seen[step.step_id] = error !== undefined && wasNeverSent(error);
      return undefined;
    },
  };
  const executor = createExecutor({
    resolve: (component) => {
      if (component === "nowhere") throw new ManifoldError("UNAVAILABLE", "no healthy replica of nowhere is registered");
      return { url: `http://127.0.0.1:${bank.port}/api/capabilities/charge` };
    },
    caller: createCaller({ env: {}, transport: keepAliveTransport }),
    interceptors: [probe],
  });
  const step = (id: string, component: string, amount: unknown) => ({
    step_id: id,
    agent_name: component,
    depends_on: [],
    metadata: { capability: "charge", parameters: { amount } },
    on_error: "continue" as const,
  });
  bank.failing = true;
  await executor.execute({ plan_id: "p1", original_request: "", mode: "custom", steps: [step("unresolved", "nowhere", 1), step("answered", "bank", 2)] });
  await bank.stop();
  await executor.execute({ plan_id: "p2", original_request: "", mode: "custom", steps: [step("refused", "bank", 3)] });
  assert.equal(seen, { unresolved: true, answered: false, refused: true });
});

test("a replica with HITL off that resumes an approved checkpoint keeps it resumed: nothing says the step did not run, so it never runs twice", async ({
  bank,
  store,
  agent,
}) => {
  const id = await approvedCheckpoint(agent, 77);
  const off = await startAgent(bank, store, { name: agent.running.spec.name, hitl: false });
  try {
    const resumed = await off.post(`/hitl/resume/${id}`);
    assert.is(resumed.status, 200, JSON.stringify(resumed.body));
    assert.is(bank.charges.length, 1);
    assert.is((await store.get(id))!.status, "resumed");
    assert.is((await off.post(`/hitl/resume/${id}`)).status, 409, "the approval is used");
    assert.is(bank.charges.length, 1, "charged once");
  } finally {
    await off.running.close();
  }
});

test.run();
