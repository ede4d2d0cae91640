/**
 * Hostile model output in natural mode (issue 32 L2, L3 and the spec audit): oversized answers are
 * capped (plans quoted back by a bounded prefix, syntheses cut with a marker), deep plans are a
 * parse failure with a clear reason (never a 500), a regenerated plan that is not JSON takes a
 * validation round, and every `llm.*` event carries request_id and phase_number but never the
 * model's text. The real `openai` client against the scripted server; real tools on loopback.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, resolveLlmConfig, type LlmProvider } from "../../runtime/llm/index.js";
import { noopTelemetry, telemetrySlot } from "../../runtime/telemetry/telemetry.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { agentSpec, serveAgent, startTools, type Tools } from "./support.js";

const GOOD_PLAN = JSON.stringify({
  steps: [{ step_id: "sum", agent_name: "worker", depends_on: [], metadata: { capability: "add", parameters: { a: 2, b: 3 } } }],
});
const HALLUCINATED = GOOD_PLAN.replace('"worker"', '"abacus"');
const deepPlan = (depth: number): string =>
  JSON.stringify({ steps: [{ step_id: "sum", agent_name: "worker", depends_on: [], metadata: { capability: "add", parameters: { a: 2, b: 3 } } }] }).replace(
    '"b":3',
    `"b":3,"deep":${"[".repeat(depth)}${"]".repeat(depth)}`,
  );

interface Context {
  tools: Tools;
  llm: ScriptedLlm;
  provider: LlmProvider;
  agent: Awaited<ReturnType<typeof serveAgent>>;
  events: { name: string; attributes: Record<string, unknown> }[];
}
const test = suite<Context>("natural mode against hostile model output", {} as Context);

test.before.each(async (context) => {
  context.events = [];
  telemetrySlot().current = { ...noopTelemetry, event: (name, attributes = {}) => void context.events.push({ name, attributes: { ...attributes } }) };
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  context.provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k-natural", maxRetries: 0 }, env: {} })!);
  context.agent = await serveAgent(agentSpec("natural-hostile", { natural: true }), {
    components: context.tools.specs,
    baseUrls: context.tools.baseUrls,
    llm: context.provider,
  });
});
test.after.each(async ({ agent, tools, llm }) => {
  telemetrySlot().current = noopTelemetry;
  await agent.running.close();
  await tools.close();
  await llm.close();
});

test("L2: a 600 KB unparsable plan is quoted back by at most a bounded prefix, and the request asks for max_tokens", async ({ agent, llm }) => {
  llm.reply({ text: `PRIVATE-MODEL-TEXT ${"x".repeat(600 * 1024)}` }, { text: GOOD_PLAN }, { text: "five" });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add 2 and 3" });
  assert.is(status, 200, JSON.stringify(body).slice(0, 300));
  const correction = llm.requests[1]!.body.messages as { role: string; content: string }[];
  const quoted = correction.find((m) => m.role === "assistant")!.content;
  assert.ok(Buffer.byteLength(quoted) <= 4096, `the correction quotes ${Buffer.byteLength(quoted)} bytes of the answer`);
  assert.ok(JSON.stringify(llm.requests[1]!.body).length < 64 * 1024, "the whole correction request stays small");
  assert.ok(Number(llm.requests[0]!.body.max_tokens) > 0, "plan requests carry max_tokens");
  assert.ok(Number(llm.requests[2]!.body.max_tokens) > 0, "synthesis requests carry max_tokens");
});

test("a 40 KB plan that does not check is quoted back with its problems by at most 8 KB, so the regeneration fits its budget", async ({ agent, llm }) => {
  const padded = JSON.stringify({
    steps: [{ step_id: "s1", agent_name: "abacus", depends_on: [], metadata: { capability: "add", parameters: { a: 2, b: 3, note: "n".repeat(40 * 1024) } } }],
  });
  llm.reply({ text: padded }, { text: GOOD_PLAN }, { text: "five" });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add 2 and 3" });
  assert.is(status, 200, JSON.stringify(body).slice(0, 300));
  const regeneration = llm.requests[1]!.body.messages as { role: string; content: string }[];
  const quoted = regeneration.find((m) => m.role === "assistant")!.content;
  assert.ok(Buffer.byteLength(quoted) <= 8 * 1024 + 200, `the regeneration quotes ${Buffer.byteLength(quoted)} bytes of the plan`);
  assert.match(quoted, /is left out/, "the cut says so");
});

test("L2: a synthesis past the cap is cut and ends with a marker", async ({ agent, llm }) => {
  llm.reply({ text: GOOD_PLAN }, { text: "five ".repeat(40_000) });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add 2 and 3" });
  assert.is(status, 200);
  const response = String(body["response"]);
  assert.ok(Buffer.byteLength(response) <= 33 * 1024, `${Buffer.byteLength(response)} bytes answered`);
  assert.match(response, /\[answer truncated: it was longer than 32768 bytes\]$/);
});

test("L3: a plan nested 5,000 deep is a parse failure with a clear reason, never a 500", async ({ agent, llm }) => {
  llm.reply({ text: deepPlan(5000) }, { text: deepPlan(5000) });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add 2 and 3" });
  assert.is(status, 502, JSON.stringify(body).slice(0, 300));
  const error = body["error"] as { code: string; message: string };
  assert.is(error.code, "LLM_ERROR");
  assert.match(error.message, /nested deeper than 32 levels/);
  const correction = llm.requests[1]!.body.messages.at(-1).content as string;
  assert.match(correction, /nested deeper than 32 levels/);
});

test("audit: a regenerated plan that is not JSON takes a validation round (one parse correction per request), not a 502", async ({ agent, llm }) => {
  llm.reply(
    { text: HALLUCINATED }, // fails the checks: round 1
    { text: "PRIVATE-MODEL-TEXT not json" }, // the regeneration does not parse: the one correction
    { text: "PRIVATE-MODEL-TEXT still not json" }, // nor after it: an invalid plan, round 2
    { text: GOOD_PLAN },
    { text: "five" },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add 2 and 3" }, { "x-manifold-request-id": "req-audit-1" });
  assert.is(status, 200, JSON.stringify(body).slice(0, 300));
  assert.is(body["response"], "five");
  assert.is(llm.requests.length, 5);
  const regeneration = llm.requests[3]!.body.messages.at(-1).content as string;
  assert.match(regeneration, /not a JSON plan/);
});

test("audit: llm.* events carry request_id and phase_number; parse_error's reason never quotes the model", async ({ agent, llm, events }) => {
  llm.reply({ text: "PRIVATE-MODEL-TEXT {" }, { text: GOOD_PLAN }, { text: "PRIVATE-ANSWER five" });
  const { status } = await agent.post("/orchestrate/natural", { request: "add 2 and 3" }, { "x-manifold-request-id": "req-audit-2" });
  assert.is(status, 200);
  const llmEvents = events.filter((e) => e.name.startsWith("llm."));
  assert.ok(llmEvents.length >= 6, llmEvents.map((e) => e.name).join(", "));
  for (const event of llmEvents) {
    assert.is(event.attributes["request_id"], "req-audit-2", event.name);
    assert.is(event.attributes["phase_number"], 1, event.name);
  }
  const parseError = events.find((e) => e.name === "llm.plan_generation.parse_error")!;
  assert.is(parseError.attributes["reason"], "not_json");
  assert.not.match(JSON.stringify(events), /PRIVATE-MODEL-TEXT|PRIVATE-ANSWER/);
  assert.is(events.find((e) => e.name === "llm.plan_generation.request")!.attributes["max_tokens"], 8192);
});

test.run();
