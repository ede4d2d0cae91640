/**
 * Natural mode's run-time binding check and micro-resolution (issue 27 item 4): a step's resolved
 * parameters are checked against the capability's input schema before it is dispatched; a templated
 * value that does not fit is derived again by one `micro_resolution` model call over the source
 * step's output and checked; one that still does not fit is rejected and never dispatched. The real
 * `openai` client against the scripted server (answering by the json_schema name, DESIGN §5.3), real
 * tools on loopback, span events through a local OTLP receiver.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent as serveFullAgent } from "../../runtime/agent/index.js";
import { createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { createLlmProvider, DATA_RULE, resolveLlmConfig, type LlmProvider } from "../../runtime/llm/index.js";
import { ONE_SHOT, type AdaptiveSettings } from "../../runtime/orchestration/natural/adaptive.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { createManualClock } from "../support/clock.js";
import { startScriptedLlm, type ScriptedEntry, type ScriptedLlm } from "../support/scripted-llm.js";
import { QUIET_AGENT } from "../support/serve.js";
import { exportToReceiver, startOtlpReceiver, naturalRequestEvents } from "../telemetry/otlp-receiver.js";
import { startRelays } from "../support/relay.js";
import { agentSpec, serveAgent, startTools, type Tools, planStep } from "./support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  tools: Tools;
  /** Relays in front of the tools: what reached a capability endpoint, before the component's own input check. */
  relays: Awaited<ReturnType<typeof startRelays>>;
  llm: ScriptedLlm;
  provider: LlmProvider;
  /** Answers queued by the json_schema name of the request (`text` for requests without one). */
  answers: Map<string, ScriptedEntry[]>;
  /** The agents a test served, closed after it. */
  agents: { readonly running: { close(): Promise<void> } }[];
  /** Told the json_schema name of each model request as it arrives. */
  onRequest: ((name: string) => void) | undefined;
}
const test = suite<Context>("natural mode: binding and micro-resolution", {} as Context);

const step = (step_id: string, cap: string, parameters: Record<string, unknown>, depends_on: string[] = []) =>
  planStep(step_id, "worker", cap, parameters, depends_on);
const plan = (...steps: unknown[]): ScriptedEntry => ({ text: JSON.stringify({ steps }) });
const value = (v: unknown): ScriptedEntry => ({ text: JSON.stringify({ value: v }) });
/** An error analysis that gives up, for whichever recovery interceptor asks about a rejected step. */
const NOT_RECOVERABLE: ScriptedEntry = { text: JSON.stringify({ recoverable: false, reason: "no", parameters: {} }) };

/** `echo` (no output summary: the static check cannot know its fields' types) feeds `add {a: number, b: number}`. */
const ECHO_THEN_ADD = (echoed: Record<string, unknown>, a: string) => plan(step("s1", "echo", echoed), step("s2", "add", { a, b: 1 }, ["s1"]));

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "micro-resolution" });
});
test.after(async ({ receiver }) => {
  await shutdownTelemetry();
  await receiver.close();
});

test.before.each(async (context) => {
  context.tools = await startTools();
  context.relays = await startRelays(context.tools.specs, context.tools.baseUrls);
  context.answers = new Map();
  context.llm = await startScriptedLlm((body) => {
    const name = String(body.response_format?.json_schema?.name ?? "text");
    context.onRequest?.(name);
    const next = context.answers.get(name)?.shift() ?? (name === "error_analysis" ? NOT_RECOVERABLE : undefined);
    return next ?? { status: 500, body: { error: { message: `scripted server: no ${name} answer scripted` } } };
  });
  context.provider = createLlmProvider(
    resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "binding-model", maxRetries: 0 }, env: {} })!,
  );
  context.agents = [];
  context.onRequest = undefined;
});
test.after.each(async ({ agents, relays, tools, llm }) => {
  for (const agent of agents) await agent.running.close();
  await relays.close();
  await tools.close();
  await llm.close();
});

async function agentOf(context: Context, adaptive: Partial<AdaptiveSettings> = {}, more: Partial<Parameters<typeof serveAgent>[1]> = {}) {
  const agent = await serveAgent(agentSpec("binding-agent", { natural: true }), {
    components: context.tools.specs,
    baseUrls: context.relays.baseUrls,
    llm: context.provider,
    adaptive,
    ...more,
  });
  context.agents.push(agent);
  return agent;
}

function script(context: Context, entries: Record<string, ScriptedEntry[]>): void {
  for (const [name, list] of Object.entries(entries)) context.answers.set(name, [...list]);
}

/** The span events of request `id` (those carrying its request_id), once its span is exported with event `last`. */
const eventsOf = ({ receiver }: Context, id: string, last = "llm.synthesis.response") => naturalRequestEvents(receiver, id, last);

/** The bodies that reached `add`'s endpoint (counted on the wire: a body the component refuses still shows). */
const addCalls = ({ relays }: Context) => relays.dispatches.filter((d) => d.capability === "add").map((d) => d.body);
const microRequests = ({ llm }: Context) => llm.requests.filter((r) => r.body.response_format?.json_schema?.name === "micro_resolution");

test("an array where a number is required is micro-resolved from the source output; the tool receives the fitted value once", async (context) => {
  script(context, { routing_plan: [ECHO_THEN_ADD({ pair: [20, 22] }, "{{s1.response.data.pair}}")], micro_resolution: [value(20)], text: [{ text: "21" }] });
  const agent = await agentOf(context);
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add one to the first" }, { "x-manifold-request-id": "req-micro-1" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(addCalls(context), [{ a: 20, b: 1 }], "dispatched once, with the resolved value");
  const [micro, ...more] = microRequests(context);
  assert.is(more.length, 0);
  const prompt = micro!.body.messages as { role: string; content: string }[];
  assert.ok(prompt[0]!.content.includes(DATA_RULE), "the system prompt says tool output is data");
  assert.match(prompt[1]!.content, /<tool_output source="s1">\n\{\n "pair": \[\n {2}20,\n {2}22\n \]\n\}\n<\/tool_output>/);
  assert.match(prompt[1]!.content, /Parameter: a\nIts JSON schema: \{"type":"number"\}\nIts value in the plan: "\{\{s1\.response\.data\.pair\}\}"/);
  assert.equal(micro!.body.response_format.json_schema.schema.properties, { value: { type: "number" } });

  const events = await eventsOf(context, "req-micro-1");
  const names = events.map((e) => e.name);
  assert.ok(names.indexOf("llm.micro_resolution.request") < names.indexOf("llm.micro_resolution.response"));
  assert.ok(names.indexOf("llm.micro_resolution.response") < names.indexOf("semantic_template_resolution"));
  assert.not.ok(names.includes("parameter.binding.rejected"));
  const resolution = events.find((e) => e.name === "semantic_template_resolution")!.attributes;
  assert.equal(
    { ...resolution, phase_number: undefined },
    {
      request_id: "req-micro-1",
      phase_number: undefined,
      step_id: "s2",
      param_name: "a",
      source_step: "s1",
      original_template: "{{s1.response.data.pair}}",
      binding_method: "inferred",
    },
  );
  const request = events.find((e) => e.name === "llm.micro_resolution.request")!.attributes;
  assert.is(request["capability"], "worker.add");
  assert.ok(Number(request["prompt_length"]) > 0);
  assert.ok(Number(events.find((e) => e.name === "llm.micro_resolution.response")!.attributes["duration_ms"]) >= 0);
});

test("a resolved value that still does not fit is rejected: the step fails with zero dispatches", async (context) => {
  script(context, {
    routing_plan: [ECHO_THEN_ADD({ pair: [20, 22] }, "{{s1.response.data.pair}}")],
    micro_resolution: [value("twenty")],
    text: [{ text: "no" }],
  });
  const agent = await agentOf(context);
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add one" }, { "x-manifold-request-id": "req-micro-2" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(addCalls(context), [], "the tool never received the bad value");
  assert.is(microRequests(context).length, 1);
  const events = await eventsOf(context, "req-micro-2");
  const rejected = events.filter((e) => e.name === "parameter.binding.rejected").map((e) => e.attributes);
  assert.is(rejected.length, 1);
  assert.is(rejected[0]!["step_id"], "s2");
  assert.is(rejected[0]!["reason"], "shape_mismatch");
  assert.is(rejected[0]!["dispatch_count"], 0);
  assert.not.ok(events.some((e) => e.name === "semantic_template_resolution"));
  const synthesis = JSON.stringify(context.llm.requests.find((r) => r.body.response_format === undefined)!.body.messages);
  assert.match(synthesis, /step s2 was not dispatched: parameter a of worker\.add must be number/);
});

test("a field the source output lacks at run time is resolved from what the output has", async (context) => {
  script(context, { routing_plan: [ECHO_THEN_ADD({ count: 7 }, "{{s1.response.data.total}}")], micro_resolution: [value(7)], text: [{ text: "8" }] });
  const agent = await agentOf(context);
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add one to the count" }, { "x-manifold-request-id": "req-micro-3" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(addCalls(context), [{ a: 7, b: 1 }]);
  const events = await eventsOf(context, "req-micro-3");
  assert.is(events.find((e) => e.name === "semantic_template_resolution")!.attributes["original_template"], "{{s1.response.data.total}}");
});

test("one-shot: the check still applies, with no model call: rejected, never dispatched", async (context) => {
  script(context, { routing_plan: [ECHO_THEN_ADD({ pair: { first: 20 } }, "{{s1.response.data.pair}}")], text: [{ text: "no" }] });
  const agent = await agentOf(context, ONE_SHOT);
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add one" }, { "x-manifold-request-id": "req-micro-4" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(addCalls(context), []);
  assert.is(microRequests(context).length, 0, "micro-resolution is off in one-shot mode");
  assert.is(context.relays.dispatches.length, 1, "only the echo was sent");
  const events = await eventsOf(context, "req-micro-4");
  assert.not.ok(events.some((e) => e.name.startsWith("llm.micro_resolution")));
  const rejected = events.find((e) => e.name === "parameter.binding.rejected")!.attributes;
  assert.equal([rejected["step_id"], rejected["reason"], rejected["dispatch_count"]], ["s2", "shape_mismatch", 0]);
});

test("a source output over the result budget is trimmed before it reaches the prompt (result_trim.micro_resolution)", async (context) => {
  const rows = Array.from({ length: 200 }, (_, i) => ({ id: i, label: `row number ${i}` }));
  // The synthesis distils s1's output (over the budget too) before it answers: one text call more.
  script(context, {
    routing_plan: [ECHO_THEN_ADD({ rows, first: 3 }, "{{s1.response.data.rows}}")],
    micro_resolution: [value(3)],
    text: [{ text: "200 rows, the first is 3" }, { text: "4" }],
  });
  const agent = await agentOf(context, { resultBudgetBytes: 1024 });
  const { status } = await agent.post("/orchestrate/natural", { request: "add one" }, { "x-manifold-request-id": "req-micro-5" });
  assert.is(status, 200);
  assert.equal(addCalls(context), [{ a: 3, b: 1 }]);
  const prompt = (microRequests(context)[0]!.body.messages as { content: string }[])[1]!.content;
  assert.ok(Buffer.byteLength(prompt) < 2048, `prompt of ${Buffer.byteLength(prompt)} bytes`);
  const events = await eventsOf(context, "req-micro-5");
  const trim = events.find((e) => e.name === "result_trim.micro_resolution")!.attributes;
  assert.is(trim["content_lost"], true);
  assert.is(trim["step_id"], "s2");
  assert.ok(Number(trim["original_bytes"]) > 1024 && Number(trim["trimmed_bytes"]) <= 1024);
});

test("a micro-resolution cut short by the request's timeout fails with the timeout: no binding rejection, nothing dispatched", async (context) => {
  const clock = createManualClock();
  script(context, { routing_plan: [ECHO_THEN_ADD({ pair: [20, 22] }, "{{s1.response.data.pair}}")], micro_resolution: [{ hang: true }] });
  // The request's timeout passes while the micro-resolution call is out.
  context.onRequest = (name) => {
    if (name === "micro_resolution") void clock.advance(60_000);
  };
  const agent = await agentOf(context, { timeoutMs: 60_000 }, { clock });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add one" }, { "x-manifold-request-id": "req-micro-6" });
  assert.is((body["error"] as { code?: string } | undefined)?.code, "TIMEOUT", JSON.stringify(body));
  assert.is(status, 504);
  assert.equal(addCalls(context), [], "the tool never received the unbound value");
  const events = await eventsOf(context, "req-micro-6", "llm.micro_resolution.response");
  assert.is(events.find((e) => e.name === "llm.micro_resolution.response")!.attributes["error_code"], "ABORTED");
  assert.not.ok(
    events.some((e) => e.name === "parameter.binding.rejected"),
    "an aborted resolution is not a shape mismatch",
  );
});

test("a run paused by HITL before the step binds it on resume: the value is micro-resolved, never dispatched as is", async (context) => {
  // The real feature list with HITL: `headers` is sensitive, so the run pauses after s1, before s2 and s3.
  const base = agentSpec("binding-careful", { natural: true });
  const hitl = { planApproval: false, sensitiveCapabilities: ["headers"], expiryMs: 60_000, defaultAction: "reject" as const };
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl } };
  const running = await serveFullAgent(spec, context.tools.specs, {
    ...QUIET_AGENT,
    llm: context.provider,
    orchestration: { baseUrls: context.relays.baseUrls, executionStore: false },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
  } as never);
  context.agents.push({ running });
  const post = async (path: string, body: unknown = {}) => {
    const response = await fetch(running.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };
  script(context, {
    routing_plan: [
      plan(
        step("s1", "echo", { pair: [20, 22] }),
        step("s2", "headers", {}, ["s1"]),
        step("s3", "add", { a: "{{s1.response.data.pair}}", b: 1 }, ["s1", "s2"]),
      ),
    ],
  });
  const first = await post("/orchestrate/natural", { request: "add one to the first, after checking the headers" });
  assert.is(first.status, 202, JSON.stringify(first.body));
  assert.equal([first.body.checkpoint.type, first.body.checkpoint.current_step.step_id], ["step", "s2"]);
  assert.equal(
    context.relays.dispatches.map((d) => d.capability),
    ["echo"],
  );

  await post("/hitl/command", { checkpoint_id: first.body.checkpoint_id, action: "approve" });
  script(context, { micro_resolution: [value(20)], text: [{ text: "21" }] });
  const resumed = await post(`/hitl/resume/${first.body.checkpoint_id}`);
  assert.equal(addCalls(context), [{ a: 20, b: 1 }], "the resumed run bound s3: the fitted value, sent once, never the array");
  assert.is(resumed.status, 200, JSON.stringify(resumed.body));
  assert.is(microRequests(context).length, 1, "micro-resolved on the resumed run");
});

test.run();
