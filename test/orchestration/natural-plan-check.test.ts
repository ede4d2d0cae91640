/**
 * `natural.plan_check` on its own: a proposal that checks is let through as the plan, one with
 * problems is sent back and its regeneration let through, one that never checks is 422 PLAN_INVALID
 * with the last problems; and in an orchestrator it runs before the after_planning hooks and every
 * other after-plan interceptor, so they only ever see a checked plan.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import type { LlmProvider, LlmRequest } from "../../runtime/llm/index.js";
import type { Caller } from "../../runtime/outbound/index.js";
import {
  createOrchestrator,
  createPlanCheckInterceptor,
  PLAN_CHECK,
  type AfterPlanDecision,
  type CatalogComponent,
  type Interceptor,
  type PlanContext,
  type PlanProposal,
} from "../../runtime/orchestration/index.js";
import { capabilityWire, type ComponentSpec } from "../../runtime/spec/index.js";
import { capability, memoryLog } from "./support.js";

const add = capability(
  "add",
  {
    required: [
      { name: "a", type: "number" },
      { name: "b", type: "number" },
    ],
    optional: [],
  },
  { required: [{ name: "sum", type: "number" }], optional: [] },
);
const spec: ComponentSpec = { kind: "tool", name: "calc", description: "adds", version: "1.0.0", capabilities: [add] };
const CATALOG: CatalogComponent[] = [{ name: "calc", kind: "tool", description: "adds", capabilities: [capabilityWire(add)] }];

const stepOf = (agent_name: string) => ({ step_id: "s1", agent_name, depends_on: [], metadata: { capability: "add", parameters: { a: 1, b: 2 } } });
const GOOD = { steps: [stepOf("calc")] };
const BAD = { steps: [stepOf("calculator")] };

/** A planner's proposal answering `values` in turn, recording what was sent back. */
function scripted(...values: unknown[]): PlanProposal & { readonly sentBack: (readonly string[])[] } {
  const sentBack: (readonly string[])[] = [];
  let at = 0;
  return {
    get value() {
      return values[at];
    },
    catalog: CATALOG,
    get revisions() {
      return at;
    },
    get attempt() {
      return at + 1;
    },
    revise: async (problems) => {
      sentBack.push(problems);
      at += 1;
    },
    sentBack,
  };
}

const contextOf = (proposal: PlanProposal): PlanContext => ({
  mode: "natural",
  request: "add 1 and 2",
  synthesise: false,
  plan: { plan_id: "", original_request: "add 1 and 2", mode: "natural", steps: [] },
  context: { request_mode: "non_streaming" },
  state: {},
  proposal,
});

const ask = async (rounds: number, proposal: PlanProposal): Promise<AfterPlanDecision | undefined> =>
  await createPlanCheckInterceptor({ rounds }).afterPlan!(contextOf(proposal));

const test = suite("natural.plan_check");

test("is a pre after-plan interceptor named natural.plan_check that lets a plan without a proposal through", async () => {
  const interceptor = createPlanCheckInterceptor({ rounds: 2 });
  assert.is(interceptor.name, PLAN_CHECK);
  assert.is(PLAN_CHECK, "natural.plan_check");
  assert.is(interceptor.enforce, "pre");
  const { proposal: _none, ...withoutProposal } = contextOf(scripted(GOOD));
  assert.is(await interceptor.afterPlan!(withoutProposal), undefined);
  assert.throws(() => createPlanCheckInterceptor({ rounds: 11 }), /maxValidationRounds/);
});

test("a proposal that checks is replaced by its plan, nothing sent back", async () => {
  const proposal = scripted(GOOD);
  const decision = await ask(2, proposal);
  assert.is(decision?.action, "replace");
  const plan = (decision as { plan: PlanContext["plan"] }).plan;
  assert.match(plan.plan_id, /^natural-\d+$/);
  assert.is(plan.original_request, "add 1 and 2");
  assert.equal(
    plan.steps.map((s) => [s.step_id, s.agent_name, s.metadata.capability, s.on_error]),
    [["s1", "calc", "add", "continue"]],
  );
  assert.equal(proposal.sentBack, []);
});

test("a proposal with problems is sent back with them, and the regeneration replaces it once it checks", async () => {
  const proposal = scripted(BAD, BAD, GOOD);
  const decision = await ask(2, proposal);
  assert.is(decision?.action, "replace");
  assert.equal((decision as { plan: PlanContext["plan"] }).plan.steps[0]!.agent_name, "calc");
  assert.is(proposal.sentBack.length, 2);
  assert.match(proposal.sentBack[0]![0]!, /^\/steps\/0\/agent_name: no component is named calculator/);
  assert.is(proposal.revisions, 2);
});

test("a proposal still invalid when the rounds are spent fails with PLAN_INVALID and the last problems", async () => {
  const proposal = scripted(BAD, BAD);
  const decision = await ask(1, proposal);
  assert.is(decision?.action, "fail");
  const error = (decision as { error: ManifoldError }).error;
  assert.instance(error, ManifoldError);
  assert.is(error.code, "PLAN_INVALID");
  assert.is(error.status, 422);
  assert.match(error.message, /^the language model's plan is still invalid after 1 regeneration: no component is named calculator/);
  assert.equal(error.details?.[0]?.pointer, "/steps/0/agent_name");
  assert.is(proposal.sentBack.length, 1, "one regeneration, then no more");
  const none = scripted(BAD);
  const spent = await ask(0, none);
  assert.match((spent as { error: ManifoldError }).error.message, /after 0 regenerations:/);
  assert.equal(none.sentBack, []);
});

/** A model that answers `texts` in turn. */
function model(...texts: string[]): LlmProvider & { readonly asked: LlmRequest[] } {
  const asked: LlmRequest[] = [];
  return {
    model: "m",
    baseUrl: "http://llm.invalid",
    asked,
    complete: async (request) => {
      asked.push(request);
      const text = texts[asked.length - 1] ?? "";
      return { text, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, model: "m", finish_reason: "stop", duration_ms: 1, streamed: false };
    },
    toJSON: () => ({ model: "m", baseUrl: "http://llm.invalid" }),
  };
}

const caller: Caller = { call: async () => ({ sum: 3 }), setToken: () => undefined, toJSON: () => ({}) };

test("in an orchestrator it runs first: hooks and every other interceptor see only the checked plan", async () => {
  const seen: string[] = [];
  const see =
    (name: string): NonNullable<Interceptor["afterPlan"]> =>
    ({ plan, proposal }) => {
      seen.push(`${name} ${plan.steps.map((s) => s.agent_name).join(",")} ${proposal === undefined}`);
      return undefined;
    };
  const llm = model(JSON.stringify(BAD), JSON.stringify(GOOD));
  const orchestrator = createOrchestrator({
    components: [spec],
    registry: false,
    resolve: () => ({ url: "http://calc.invalid/" }),
    caller,
    llm,
    executionStore: false,
    llmDebug: false,
    log: memoryLog().log,
    hooks: [{ name: "look", phase: "after_planning", run: ({ plan }) => void seen.push(`hook ${plan?.steps.map((s) => s.agent_name).join(",")}`) }],
    interceptors: [{ name: "given", afterPlan: see("given") }],
  });
  orchestrator.use({ name: "used", afterPlan: see("used") });
  const run = await orchestrator.runNatural("add 1 and 2");
  assert.is(run.status, "completed");
  assert.is(run.regenerations, 1);
  assert.is(llm.asked.length, 2, "the plan, then one regeneration");
  assert.equal(seen, ["hook calc", "given calc true", "used calc true"]);
  const last = llm.asked[1]!.messages;
  assert.match(last[last.length - 1]!.content, /no component is named calculator/);
  await orchestrator.close();
});

test("in an orchestrator, a plan that never checks is PLAN_INVALID before any hook, interceptor or step", async () => {
  const seen: string[] = [];
  let calls = 0;
  const orchestrator = createOrchestrator({
    components: [spec],
    registry: false,
    resolve: () => ({ url: "http://calc.invalid/" }),
    caller: {
      ...caller,
      call: async () => {
        calls += 1;
        return {};
      },
    },
    llm: model(JSON.stringify(BAD), JSON.stringify(BAD)),
    maxValidationRounds: 1,
    executionStore: false,
    llmDebug: false,
    log: memoryLog().log,
    hooks: [{ name: "look", phase: "after_planning", run: () => void seen.push("hook") }],
    interceptors: [{ name: "given", afterPlan: () => void seen.push("given") }],
  });
  const error = await orchestrator.runNatural("add 1 and 2").then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  assert.instance(error, ManifoldError);
  assert.is((error as ManifoldError).code, "PLAN_INVALID");
  assert.equal(seen, []);
  assert.is(calls, 0);
  await orchestrator.close();
});

test.run();
