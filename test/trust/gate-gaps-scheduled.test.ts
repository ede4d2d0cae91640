/**
 * Issue 32, H2 (the approval gate's last gaps): a scheduled run that HITL refuses can never succeed
 * by being delivered again, so `POST /api/v1/scheduled` answers it as what it is, 403
 * APPROVAL_REQUIRED, not retryable (the executor must not retry it until it dead-letters), naming the
 * refused call. Other failures that a retry cannot mend keep their own code too; a failure that
 * might pass on another try stays 500 ORCHESTRATOR_ERROR, retryable.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createCaller } from "../../runtime/outbound/index.js";
import { startRecorder } from "../outbound/support.js";
import { agent, agentSpec } from "../support/specs.js";

const SPEC = agentSpec(
  agent("pay-agent", {
    description: "pays on a schedule",
    capabilities: {},
    more: { scheduled: true, hitl: { sensitive_capabilities: ["charge"], default_action: "reject" } },
  }),
);
const RUN = { schedule_id: "sch-0123456789abcdef", task_id: "sch-0123456789abcdef:1700000000", instruction: "pay", input: { amount: 79 } };

async function post(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/api/v1/scheduled`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

const tool = await startRecorder();
const caller = createCaller({ log: { warn: () => undefined } as never });
const running = await serveAgent(SPEC, [], {
  port: 0,
  registry: false,
  handleSignals: false,
  log: () => undefined,
  handlers: {},
  llm: false,
  hitl: { expiry: false },
  scheduled: async (request: { instruction: string; input: Record<string, unknown> }) => {
    if (request.instruction === "conflict") throw new ManifoldError("CONFLICT", "the invoice is closed");
    if (request.instruction === "model") throw new ManifoldError("LLM_ERROR", "the model endpoint answered 502");
    // Through the one outbound caller, as a typed client calls: the agent's HITL gates it.
    await caller.call({ url: `${tool.url}/api/capabilities/charge`, body: request.input, name: "charge", target: "hitl-tool" });
    return "paid";
  },
} as never);
test.after(async () => {
  await running.close();
  await tool.close();
});

test("a scheduled handler refused APPROVAL_REQUIRED answers 403 APPROVAL_REQUIRED, not retryable, naming the call; nothing charged", async () => {
  const answer = await post(running.url, RUN);
  assert.is(answer.status, 403, JSON.stringify(answer.body));
  assert.is(answer.body.error.code, "APPROVAL_REQUIRED");
  assert.is(answer.body.error.retryable, false, "a delivery again cannot approve it: the executor must dead-letter it at once");
  assert.match(answer.body.error.message, /APPROVAL_REQUIRED: hitl-tool\.charge is a sensitive capability/);
  const detail = answer.body.error.details?.[0] as Record<string, unknown>;
  assert.equal([detail["component"], detail["capability"], detail["parameters"]], ["hitl-tool", "charge", { amount: 79 }]);
  assert.is(tool.received.length, 0);
});

test("another failure a retry cannot mend keeps its code, not retryable; one that may pass later stays 500 ORCHESTRATOR_ERROR, retryable", async () => {
  const conflict = await post(running.url, { ...RUN, instruction: "conflict" });
  assert.equal([conflict.status, conflict.body.error.code, conflict.body.error.retryable], [409, "CONFLICT", false]);
  assert.is(conflict.body.error.message, "scheduled run failed (CONFLICT: the invoice is closed)");
  const model = await post(running.url, { ...RUN, instruction: "model" });
  assert.equal(model.body, {
    success: false,
    error: {
      code: "ORCHESTRATOR_ERROR",
      message: "scheduled run failed (LLM_ERROR: the model endpoint answered 502)",
      category: "service_error",
      retryable: true,
    },
  });
  assert.is(model.status, 500);
});

test.run();
