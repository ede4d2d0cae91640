/**
 * Tiered selection's span events and prompt-size metric against a local OTLP receiver, on the
 * request's span with the spec's names and attributes: a corrected or dropped selected name
 * (`llm.hallucination_detected`), the empty-selection recovery (`llm.tiered_selection.semantic_empty_phase1`,
 * `llm.tiered_selection.empty_recovered`), a regeneration keeping the selection and a continuation
 * reusing it or selecting again (`selection_reused`), and `manifold.llm.prompt.bytes` for the
 * selection and plan calls.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import { planStep, planText } from "./support.js";
import { json, selectionOf, startSelectionNetwork, type SelectionNetwork } from "./selection-support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  network: SelectionNetwork;
}
const test = suite<Context>("tiered selection telemetry", {} as Context);

const ADD = planText([planStep("sum", "worker", "add", { a: 20, b: 22 })]);
const TWO_PHASES = JSON.stringify({ steps: [planStep("s1", "worker", "add", { a: 20, b: 22 })], continue: true });
const ECHO_TOTAL = planText([planStep("s2", "worker", "echo", { total: "{{s1.response.data.sum}}" }, ["s1"])]);

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "selection-traced" });
  context.network = await startSelectionNetwork();
});
test.after(async ({ receiver, network }) => {
  await network.close();
  await shutdownTelemetry();
  await receiver.close();
});

type Event = { readonly name: string; readonly attributes: Record<string, unknown> };

/** The request's events (from its server span), with the request. */
async function post({ receiver, network }: Context, requestId: string, request: string): Promise<Event[]> {
  const { status, body } = await network.agent.post("/orchestrate/natural", { request }, { "x-manifold-request-id": requestId });
  assert.is(status, 200, JSON.stringify(body));
  const find = () => receiver.spans.find((s) => s.name === "HTTP POST /orchestrate/natural" && s.events.some((e) => e.attributes["request_id"] === requestId));
  await receiver.until(() => find() !== undefined, `the request span of ${requestId}`);
  return [...find()!.events];
}
const named = (events: readonly Event[], name: string) => events.filter((e) => e.name === name).map((e) => e.attributes);

test("a selected name with a near miss is corrected, one without is dropped: each reported; the prompt sizes are a metric", async (context) => {
  context.network.answers = {
    capability_selection: () =>
      json({
        capabilities: [
          { agent_name: "workr", capability: "add" },
          { agent_name: "abacus", capability: "frobnicate" },
        ],
      }),
    routing_plan: () => ({ text: ADD }),
    text: () => ({ text: "42" }),
  };
  const events = await post(context, "req-hallucinated", "please add 20 and 22");
  assert.equal(
    named(events, "llm.hallucination_detected").map((a) => [a["hallucinated_agent"], a["corrected_to"], a["attempt"], a["phase_number"]]),
    [
      ["workr.add", "worker.add", 1, 1],
      ["abacus.frobnicate", undefined, 1, 1],
    ],
  );
  const phases = () =>
    new Set(context.receiver.points.filter((p) => p.metric === "manifold.llm.prompt.bytes").map((p) => String(p.attributes["manifold.llm.phase"])));
  await context.receiver.until(() => phases().has("tiered_selection") && phases().has("plan_generation"), "prompt sizes of the selection and the plan");
});

test("a selection that names nothing usable is recovered once over the wider index", async (context) => {
  let selections = 0;
  context.network.answers = {
    capability_selection: () => ((selections += 1) === 1 ? json({ capabilities: [{ agent_name: "zzzz", capability: "qqqq" }] }) : selectionOf("worker.add")),
    routing_plan: () => ({ text: ADD }),
    text: () => ({ text: "42" }),
  };
  const events = await post(context, "req-empty", "please add 20 and 22");
  assert.equal(
    named(events, "llm.tiered_selection.semantic_empty_phase1").map((a) => [a["attempt"], a["phase_number"]]),
    [[1, 1]],
  );
  assert.equal(
    named(events, "llm.tiered_selection.empty_recovered").map((a) => [a["prior_count"], a["attempt"]]),
    [[1, 2]],
  );
});

test("a plan outside the selection is regenerated over the same selection", async (context) => {
  const plans = [planText([planStep("e", "worker", "echo", { v: 1 })]), ADD];
  context.network.answers = {
    capability_selection: () => selectionOf("worker.add"),
    routing_plan: () => ({ text: plans.shift()! }),
    text: () => ({ text: "42" }),
  };
  const events = await post(context, "req-outside", "please add 20 and 22");
  assert.equal(
    named(events, "orchestrator.plan_regeneration.selection").map((a) => a["selection_reused"]),
    [true],
  );
});

test("a continuation reuses the selection; one that needs more selects again", async (context) => {
  const plans = [TWO_PHASES, ECHO_TOTAL, ECHO_TOTAL];
  const selections = [selectionOf("worker.add"), selectionOf("worker.echo")];
  context.network.answers = {
    capability_selection: () => selections.shift()!,
    routing_plan: () => ({ text: plans.shift()! }),
    text: () => ({ text: "42" }),
  };
  const events = await post(context, "req-continued", "add 20 and 22, then echo the total");
  assert.equal(
    named(events, "llm.continuation_plan_regeneration.request").map((a) => [a["phase_number"], a["selection_reused"]]),
    [[2, true]],
  );
  assert.equal(
    named(events, "orchestrator.plan_regeneration.selection").map((a) => [a["phase_number"], a["selection_reused"]]),
    [[2, false]],
  );
});

test.run();
