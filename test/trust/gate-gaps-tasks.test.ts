/**
 * Issue 32, H2 (the approval gate's last gaps): a task is a client's request that nobody approved.
 * On an agent with HITL, a typed task handler that calls a sensitive capability through its typed
 * client is refused APPROVAL_REQUIRED before anything is sent, and the task fails with that code (a
 * task cannot pause: it has no plan step to pause on). The same holds in a worker-only process
 * (`MANIFOLD_MODE=worker`), which serves no task routes at all. Other calls still go out, carrying
 * the gate on to the callee.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import type { HitlSpec } from "../../runtime/hitl/index.js";
import { createCaller } from "../../runtime/outbound/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { createMemoryTaskBackend, type TaskBackend, type TaskView } from "../../runtime/tasks/index.js";
import { startRecorder } from "../outbound/support.js";
import { silentLogger, submit, view } from "../tasks/support.js";
import { eventually } from "../support/wait.js";
import { QUIET_AGENT } from "../support/serve.js";

const POLICY: HitlSpec = { planApproval: false, sensitiveCapabilities: ["charge"], expiryMs: 60_000, defaultAction: "reject" };
const SPEC: ComponentSpec = {
  kind: "agent",
  name: "billing-agent",
  description: "charges in the background",
  version: "1.0.0",
  capabilities: [],
  agent: { uses: [], orchestration: { custom: false, endpoints: [], workflows: [] }, tasks: [{ type: "pay", key: "pay" }], hitl: POLICY },
};

const tool = await startRecorder();
const caller = createCaller({ log: { warn: () => undefined } as never });
/** The `pay` handler: looks the customer up (not sensitive), then charges through the typed client's caller. */
const pay = async (input: { amount: number; ref: string }) => {
  await caller.call({ url: `${tool.url}/api/capabilities/lookup`, body: { ref: input.ref }, name: "lookup", target: "hitl-tool" });
  return caller.call({ url: `${tool.url}/api/capabilities/charge`, body: input, name: "charge", target: "hitl-tool" });
};

function start(backend: TaskBackend, mode: "embedded" | "api" | "worker" = "embedded"): Promise<RunningComponent> {
  return serveAgent(SPEC, [], {
    ...QUIET_AGENT,
    hitl: { expiry: false },
    tasks: { pay },
    taskOptions: { backend, mode, log: silentLogger(), shutdownTimeoutMs: 1_000 },
  } as never);
}

async function finished(base: string, id: string): Promise<TaskView> {
  let task: TaskView | undefined;
  await eventually(`task ${id} to finish`, async () => {
    task = await view(base, id);
    return task.status === "completed" || task.status === "failed";
  });
  return task!;
}

const charges = (ref: string) => tool.received.filter((r) => r.url.endsWith("/charge") && JSON.parse(r.body).ref === ref).length;
const lookups = (ref: string) => tool.received.filter((r) => r.url.endsWith("/lookup") && JSON.parse(r.body).ref === ref);

test("a task handler's sensitive call is refused before it leaves; the task fails APPROVAL_REQUIRED naming it; other calls carry the gate on", async () => {
  const backend = createMemoryTaskBackend();
  const agent = await start(backend);
  try {
    const id = await submit(agent.url, { type: "pay", input: { amount: 12, ref: "embedded" } });
    const task = await finished(agent.url, id);
    assert.is(task.status, "failed", JSON.stringify(task));
    assert.is(task.error?.code, "APPROVAL_REQUIRED");
    assert.match(task.error!.message, /hitl-tool\.charge is a sensitive capability/);
    assert.is(charges("embedded"), 0, "nothing charged");
    const [lookup] = lookups("embedded");
    assert.is(lookup?.headers["x-manifold-approval-gate"], "charge", "the callee learns the task's restrictions");
  } finally {
    await agent.close();
    await backend.close();
  }
});

test("the same in a worker-only process (MANIFOLD_MODE=worker), which serves no task routes", async () => {
  const backend = createMemoryTaskBackend();
  const api = await start(backend, "api");
  const worker = await start(backend, "worker");
  try {
    const id = await submit(api.url, { type: "pay", input: { amount: 13, ref: "worker" } });
    const task = await finished(api.url, id);
    assert.equal([task.status, task.error?.code], ["failed", "APPROVAL_REQUIRED"], JSON.stringify(task));
    assert.is(charges("worker"), 0);
  } finally {
    await worker.close();
    await api.close();
    await backend.close();
  }
});

test.after(() => tool.close());
test.run();
