/**
 * Issue 32, H2: sensitivity follows the call. The HITL gate of an unapproved request (the request
 * scope's ApprovalGate) refuses a sensitive call wherever it is made, a step's callee included, over
 * real HTTP: direct vs indirect, approved vs not, and a forged `X-Manifold-Approval-Gate` header that
 * tries to grant what the policy forbids.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { ApprovalGate, currentScope, parametersHash, withRequestContext } from "../../runtime/context/index.js";
import { createCheckpointInterceptor, createHitlInterceptors, createStepGateInterceptor, resolveHitlPolicy, type PausedRun } from "../../runtime/hitl/index.js";
import { resumeOf } from "../../runtime/hitl/coordinator.js";
import type { Checkpoint } from "../../runtime/hitl/index.js";
import type { ExecutionContext, PlanStep, StepContext, StepOutcomeContext } from "../../runtime/orchestration/index.js";
import { createCaller } from "../../runtime/outbound/index.js";
import { startRecorder } from "../outbound/support.js";
import { tool, toolSpec } from "../support/specs.js";
import { rejection } from "../support/errors.js";

const POLICY = resolveHitlPolicy({ planApproval: false, sensitiveCapabilities: ["convert_currency"], expiryMs: 60_000, defaultAction: "reject" }, {});
const AMOUNT = { amount: 424_242, from: "EUR", to: "JPY" };

/** The gate of the request the test code runs in, with the policy on it. */
function gated(): ApprovalGate {
  const gate = currentScope()?.approval;
  assert.ok(gate instanceof ApprovalGate, "every request context carries an approval gate");
  return gate.restrict(POLICY.sensitiveCapabilities);
}

/** "trip-agent": a component whose `brief` handler calls currency-service.convert_currency through a caller, as a typed client does. */
async function startTripAgent(currencyUrl: string) {
  const caller = createCaller({ log: { warn: () => undefined } as never });
  const spec = toolSpec(tool("trip-agent", { description: "briefs", capabilities: { brief: { description: "one brief", input: { amount: "number" } } } }));
  return serveComponent(spec, {
    port: 0,
    registry: false,
    handleSignals: false,
    log: () => undefined,
    handlers: {
      brief: async ({ amount }: { amount: number }) => {
        const body = { ...AMOUNT, amount };
        return caller.call({ url: `${currencyUrl}/api/capabilities/convert_currency`, body, name: "convert_currency", target: "currency-service" });
      },
    } as never,
  });
}

test("an unapproved request refuses a sensitive call before it leaves, naming it; other calls carry the gate on", async () => {
  const currency = await startRecorder();
  const caller = createCaller();
  try {
    await withRequestContext({}, async () => {
      gated();
      const refused = await rejection(caller.call({ url: `${currency.url}/convert`, body: AMOUNT, name: "convert_currency", target: "currency-service" }));
      assert.is(refused.code, "APPROVAL_REQUIRED");
      assert.is(refused.status, 403);
      const detail = refused.details?.[0] as Record<string, unknown>;
      assert.equal(
        { component: detail["component"], capability: detail["capability"], parameters: detail["parameters"], hash: detail["parameters_hash"] },
        { component: "currency-service", capability: "convert_currency", parameters: AMOUNT, hash: parametersHash(AMOUNT) },
      );
      assert.is(currency.received.length, 0, "the refused call never reached the tool");
      await caller.call({ url: `${currency.url}/weather`, body: { lat: 1 }, name: "get_current_weather", target: "weather-service" });
    });
    assert.is(currency.received.length, 1);
    assert.is(currency.received[0]!.headers["x-manifold-approval-gate"], "convert_currency", "the callee learns the request's restrictions");
    // Outside an unapproved request nothing is gated and no header is sent.
    await caller.call({ url: `${currency.url}/convert`, body: AMOUNT, name: "convert_currency", target: "currency-service" });
    assert.is(currency.received[1]!.headers["x-manifold-approval-gate"], undefined);
  } finally {
    await currency.close();
  }
});

test("indirect: a callee's handler that reaches a sensitive capability is refused, and APPROVAL_REQUIRED comes back naming the call", async () => {
  const currency = await startRecorder();
  const agent = await startTripAgent(currency.url);
  const caller = createCaller();
  try {
    const brief = { url: `${agent.url}/api/capabilities/brief`, body: { amount: 99 }, name: "brief", target: "trip-agent" };
    const refused = await withRequestContext({}, async () => {
      gated();
      return rejection(caller.call(brief));
    });
    assert.is(refused.code, "APPROVAL_REQUIRED");
    const detail = refused.details?.[0] as Record<string, unknown>;
    assert.equal([detail["component"], detail["capability"], detail["parameters"]], ["currency-service", "convert_currency", { ...AMOUNT, amount: 99 }]);
    assert.is(currency.received.length, 0, "convert_currency did not run");
    // The same call in a request without a gate (nothing to approve) runs as before.
    await caller.call(brief);
    assert.is(currency.received.length, 1);
  } finally {
    await agent.close();
    await currency.close();
  }
});

test("approved indirect: the grant handed on with the approved step's call lets its callee make exactly that call, once", async () => {
  const currency = await startRecorder();
  const agent = await startTripAgent(currency.url);
  const caller = createCaller();
  try {
    const via = { component: "trip-agent", capability: "brief", hash: parametersHash({ amount: 99 }) };
    const allow = { component: "currency-service", capability: "convert_currency", hash: parametersHash({ ...AMOUNT, amount: 99 }) };
    await withRequestContext({}, async () => {
      gated().grant({ via, allow });
      // Another call of the same step's capability with other parameters is not the approved one.
      const other = await rejection(caller.call({ url: `${agent.url}/api/capabilities/brief`, body: { amount: 7 }, name: "brief", target: "trip-agent" }));
      assert.is(other.code, "APPROVAL_REQUIRED");
      await caller.call({ url: `${agent.url}/api/capabilities/brief`, body: { amount: 99 }, name: "brief", target: "trip-agent" });
      assert.is(currency.received.length, 1, "the approved call ran");
      const again = await rejection(caller.call({ url: `${agent.url}/api/capabilities/brief`, body: { amount: 99 }, name: "brief", target: "trip-agent" }));
      assert.is(again.code, "APPROVAL_REQUIRED", "approve once, run at most once");
    });
    assert.is(currency.received.length, 1);
    assert.is(currency.received[0]!.headers["x-manifold-approval-gate"], "convert_currency", "the grant is not handed further on");
  } finally {
    await agent.close();
    await currency.close();
  }
});

test("a forged gate header grants nothing: it lifts only what it put up itself, never the local policy's restriction", async () => {
  const allow = `allow:currency-service.convert_currency:${parametersHash(AMOUNT)}`;
  // The header first (an inbound request), then the agent's policy: the policy's entry stays.
  const inbound = new ApprovalGate().addHeader(`convert_currency,${allow}`).restrict(POLICY.sensitiveCapabilities);
  assert.equal(inbound.check("currency-service", "convert_currency", AMOUNT), ["convert_currency"]);
  // The policy first, then a header: the same.
  const local = new ApprovalGate().restrict(POLICY.sensitiveCapabilities).addHeader(allow);
  assert.equal(local.check("currency-service", "convert_currency", AMOUNT), ["convert_currency"]);
  // A header alone (a callee without a policy of its own) lifts its own restriction once: as if it had not been sent.
  const alone = new ApprovalGate().addHeader(`convert_currency,${allow},not a part,allow:x`);
  assert.equal(alone.toJSON(), { entries: ["convert_currency"] });
  assert.equal(alone.check("currency-service", "convert_currency", { to: "JPY", from: "EUR", amount: 424_242 }), [], "the hash ignores key order");
  assert.equal(alone.check("currency-service", "convert_currency", AMOUNT), ["convert_currency"], "used once");
  assert.equal(alone.check("currency-service", "convert_currency", { ...AMOUNT, amount: 1 }), ["convert_currency"], "bound to the parameters");
  // A stripped header leaves nothing gated: the same as calling the component directly.
  assert.ok(new ApprovalGate().addHeader(undefined).empty);
});

test("over HTTP, a forged header on the callee's request cannot grant a call its caller's gate refused", async () => {
  const currency = await startRecorder();
  const agent = await startTripAgent(currency.url);
  try {
    const forged = `convert_currency,allow:currency-service.convert_currency:${parametersHash({ ...AMOUNT, amount: 5 })}`;
    const post = (gate: string) =>
      fetch(`${agent.url}/api/capabilities/brief`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-manifold-approval-gate": gate },
        body: '{"amount":5}',
      });
    assert.is((await post("convert_currency")).status, 403, "the header's restriction holds");
    assert.is(currency.received.length, 0);
    const answered = await post(forged);
    assert.is(answered.status, 200, "a header granting its own restriction is as if no header was sent");
    assert.is(currency.received.length, 1);
  } finally {
    await agent.close();
    await currency.close();
  }
});

const step = (id: string, agent: string, capability: string, parameters: Record<string, unknown>): PlanStep => ({
  step_id: id,
  agent_name: agent,
  depends_on: [],
  metadata: { capability, parameters },
  on_error: "fail",
});
const stepContext = (s: PlanStep, state: Record<string, unknown> = {}): StepContext =>
  ({
    plan: { steps: [s] },
    step: s,
    index: 0,
    mode: "natural",
    parameters: s.metadata.parameters,
    round: 0,
    signal: new AbortController().signal,
    state,
  }) as never;

test("direct: the step gate puts the policy on the request's gate and grants an approved sensitive step its own call, once", async () => {
  const currency = await startRecorder();
  const caller = createCaller();
  const gate = createStepGateInterceptor(POLICY);
  try {
    const convert = step("fx", "currency-service", "convert_currency", AMOUNT);
    await withRequestContext({}, async () => {
      assert.equal((gate.beforeStep!(stepContext(convert)) as { action: string }).action, "pause");
      assert.equal(currentScope()!.approval!.toJSON(), { entries: ["convert_currency"] }, "the run's calls are gated from its first step on");
      assert.is(gate.beforeStep!(stepContext(convert, { hitl: { approved: ["fx"] } })), undefined);
      const changed = await rejection(
        caller.call({ url: currency.url, body: { ...AMOUNT, amount: 99_999_999 }, name: "convert_currency", target: "currency-service" }),
      );
      assert.is(changed.code, "APPROVAL_REQUIRED", "the approval is bound to the approved parameters");
      await caller.call({ url: currency.url, body: AMOUNT, name: "convert_currency", target: "currency-service" });
      const twice = await rejection(caller.call({ url: currency.url, body: AMOUNT, name: "convert_currency", target: "currency-service" }));
      assert.is(twice.code, "APPROVAL_REQUIRED");
    });
    assert.is(currency.received.length, 1);
  } finally {
    await currency.close();
  }
});

test("hitl.indirect_gate pauses a step whose callee answered APPROVAL_REQUIRED; the checkpoint names the call and a resume grants exactly it", async () => {
  const currency = await startRecorder();
  const agent = await startTripAgent(currency.url);
  try {
    const refused = await withRequestContext({}, async () => {
      gated();
      return rejection(createCaller().call({ url: `${agent.url}/api/capabilities/brief`, body: { amount: 99 }, name: "brief", target: "trip-agent" }));
    });
    const made: PausedRun[] = [];
    const interceptors = createHitlInterceptors(POLICY, async (paused) => {
      made.push(paused);
      return { status: 202, body: {} } as never;
    });
    const indirect = interceptors.find((i) => i.name === "hitl.indirect_gate");
    assert.ok(indirect, "registered with HITL's interceptors");
    assert.ok(interceptors.indexOf(indirect!) < interceptors.findIndex((i) => i.name === "hitl.error_checkpoint"));
    const brief = step("s1", "trip-agent", "brief", { amount: 99 });
    const decision = indirect!.afterStep!({ ...stepContext(brief), error: refused, attempts: 1 } as StepOutcomeContext) as {
      action: string;
      data: Record<string, unknown>;
    };
    const call = {
      component: "currency-service",
      capability: "convert_currency",
      parameters: { ...AMOUNT, amount: 99 },
      parameters_hash: parametersHash({ ...AMOUNT, amount: 99 }),
    };
    assert.equal(decision.action, "pause");
    assert.equal(decision.data, { sensitive_matches: ["convert_currency"], indirect: call });
    // The checkpoint interceptor makes a step checkpoint (not a correction) that names the call.
    const interrupt = {
      step_id: "s1",
      index: 0,
      parameters: { amount: 99 },
      reason: "r",
      interceptor: "hitl.indirect_gate",
      data: decision.data,
      error: { code: "APPROVAL_REQUIRED", message: "m" },
    };
    await createCheckpointInterceptor(async (paused) => {
      made.push(paused);
      return { status: 202, body: {} } as never;
    }).afterExecution!({ result: { interrupt, steps: [] } } as unknown as ExecutionContext);
    assert.equal([made[0]!.type, made[0]!.indirect], ["step", call]);
    // A resume of that checkpoint: the step is approved, and its callee may make the call once.
    const claimed = {
      completed_steps: [],
      current_step: { step_id: "s1", index: 0 },
      plan: {},
      decision: { reason: "r", sensitive_matches: [], indirect: call },
    } as unknown as Checkpoint;
    const state = resumeOf(claimed).state;
    assert.equal(state, { hitl: { approved: ["s1"], indirect: { s1: call } } });
    await withRequestContext({}, async () => {
      assert.is(createStepGateInterceptor(POLICY).beforeStep!(stepContext(brief, state)), undefined);
      await createCaller().call({ url: `${agent.url}/api/capabilities/brief`, body: { amount: 99 }, name: "brief", target: "trip-agent" });
    });
    assert.is(currency.received.length, 1, "after approval the indirect call ran, once");
  } finally {
    await agent.close();
    await currency.close();
  }
});

test.run();
