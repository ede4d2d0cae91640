/**
 * The spans of skills per request against a local OTLP receiver: `orchestrator.skills.pin_candidates`
 * (with its `skills.registry.list` reads), `orchestrator.skills.activate` (a `skills.registry.get` per
 * skill), `orchestrator.skills.resolve_resources` (a `skills.registry.resource` per read), children of
 * the request's span, with `skill.namespace`, `skill.name`, `skill.version` and `skill.resource`; no
 * attribute ever holds a skill's instructions or a resource's text. A second request reuses the
 * compact index instead of listing the registry again.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { createManualClock } from "../support/clock.js";
import { exportToReceiver, startOtlpReceiver, type ReceivedSpan } from "../telemetry/otlp-receiver.js";
import { planStep, planText } from "../orchestration/support.js";
import { skill, startSkillsNetwork, type SkillsNetwork } from "./run-support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  network: SkillsNetwork;
}
const test = suite<Context>("skills telemetry", {} as Context);

const INSTRUCTIONS = "SECRET-INSTRUCTION-BODY: check the weather, then read references/checklist.md.";
const CHECKLIST = "SECRET-RESOURCE-BODY: umbrella.";

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "skills-traced" });
  context.network = await startSkillsNetwork({ clock: createManualClock() });
  context.network.answers = {
    routing_plan: () => ({ text: planText([planStep("sum", "worker", "add", { a: 1, b: 2 })]) }),
    text: () => ({ text: "3" }),
  };
  await context.network.store.publish(
    skill("packing-advice", INSTRUCTIONS, {
      description: "Packing advice for a trip.",
      version: "1.2.0",
      resources: [{ path: "references/checklist.md", bytes: Buffer.byteLength(CHECKLIST), text: CHECKLIST }],
    }),
  );
});
test.after(async ({ receiver, network }) => {
  await network.close();
  await shutdownTelemetry();
  await receiver.close();
});

const SKILL = { "skill.namespace": "travel", "skill.name": "packing-advice", "skill.version": "1.2.0" };

/** The spans of one trace: the request's server span and everything under it. */
async function traceOf({ receiver }: Context, requestId: string): Promise<ReceivedSpan[]> {
  const server = () =>
    receiver.spans.find((s) => s.name === "HTTP POST /orchestrate/natural" && s.events.some((e) => e.attributes["request_id"] === requestId));
  await receiver.until(() => server() !== undefined, `the request span of ${requestId}`);
  const traceId = server()!.traceId;
  await receiver.until(() => receiver.spans.some((s) => s.traceId === traceId && s.name === "orchestrator.skills.pin_candidates"), "the skills spans");
  return receiver.spans.filter((s) => s.traceId === traceId);
}
const one = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan => {
  const found = spans.filter((s) => s.name === name);
  assert.is(found.length, 1, `one ${name} span`);
  return found[0]!;
};

test("pin_candidates, activate and resolve_resources are children of the request's span, with skill.* attributes and no body", async (context) => {
  const { status, body } = await context.network.ask("What should I pack for Lisbon?", "req-traced");
  assert.is(status, 200, JSON.stringify(body));
  const spans = await traceOf(context, "req-traced");
  await context.receiver.until(
    () => context.receiver.spans.some((s) => s.name === "orchestrator.skills.resolve_resources" && s.traceId === spans[0]!.traceId),
    "the resolve_resources span",
  );
  const all = context.receiver.spans.filter((s) => s.traceId === spans[0]!.traceId);
  const server = one(all, "HTTP POST /orchestrate/natural");
  const pin = one(all, "orchestrator.skills.pin_candidates");
  const activate = one(all, "orchestrator.skills.activate");
  const resolve = one(all, "orchestrator.skills.resolve_resources");
  for (const span of [pin, activate, resolve]) assert.is(span.parentSpanId, server.spanId, `${span.name} under the request's span`);
  assert.equal(
    [
      pin.attributes["skills.candidate_count"],
      pin.attributes["skills.chosen_count"],
      pin.attributes["skills.selection"],
      pin.attributes["skills.index_cached"],
    ],
    [1, 1, "lexical", false],
  );
  const list = one(all, "skills.registry.list");
  assert.is(list.parentSpanId, pin.spanId);
  assert.is(list.attributes["skill.namespace"], "travel");

  const get = one(all, "skills.registry.get");
  assert.is(get.parentSpanId, activate.spanId);
  assert.equal({ ...get.attributes }, { ...SKILL });
  assert.equal(
    activate.events.filter((e) => e.name === "skills.skill_activated").map((e) => e.attributes),
    [SKILL],
  );

  const read = one(all, "skills.registry.resource");
  assert.is(read.parentSpanId, resolve.spanId);
  assert.equal({ ...read.attributes }, { ...SKILL, "skill.resource": "references/checklist.md" });
  assert.is(resolve.attributes["skills.resource_count"], 1);

  const texts = all.flatMap((s) => [...Object.values(s.attributes), ...s.events.flatMap((e) => Object.values(e.attributes))]).map(String);
  assert.equal(
    texts.filter((t) => t.includes("SECRET-")),
    [],
    "no instruction or resource text in any attribute",
  );
});

test("a second request within the index's lifetime does not list the registry again", async (context) => {
  const { status } = await context.network.ask("What should I pack for Oslo?", "req-cached");
  assert.is(status, 200);
  const spans = await traceOf(context, "req-cached");
  assert.is(one(spans, "orchestrator.skills.pin_candidates").attributes["skills.index_cached"], true);
  assert.equal(
    spans.filter((s) => s.name === "skills.registry.list"),
    [],
  );
});

test.run();
