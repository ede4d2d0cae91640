/**
 * Result distillation, what is done with the model's answers (the review of issue 28): summaries
 * that fill what they were asked for reach the synthesis whole, within the per-request budget (the
 * last guard, which cuts every string to 2,000 characters, is not reached); an answer cut short
 * (`finish_reason: length`, or longer than the bytes kept), filtered (`content_filter`) or empty
 * stands for nothing: the result is trimmed (content_lost true) and nothing is cached. The real
 * `openai` client against the scripted server, a real tool on loopback, the span events at a local
 * OTLP receiver.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { startScriptedLlm, type ScriptedEntry, type ScriptedLlm } from "../support/scripted-llm.js";
import { exportToReceiver, startOtlpReceiver, naturalRequestEvents } from "../telemetry/otlp-receiver.js";
import { kindOf, promptSize, startDataset, type Dataset, bodiesOf, named, userPrompt } from "./distill-support.js";
import { agentSpec, planStep, serveAgent } from "./support.js";

type Agent = Awaited<ReturnType<typeof serveAgent>>;

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  dataset: Dataset;
  llm: ScriptedLlm;
  script: (body: any) => ScriptedEntry;
  agent: Agent;
}
const test = suite<Context>("result distillation: the model's answers", {} as Context);

const PROMPT_BUDGET = 32_000 * 3;
const REQUEST_RESULT_BUDGET = 4 * 16_384;
const answer = (value: unknown): ScriptedEntry => ({ text: JSON.stringify(value) });
const rowsStep = (id: string, count: number) => planStep(id, "dataset", "rows", { count, width: 150 });

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "distill-answers" });
  context.dataset = await startDataset();
  context.llm = await startScriptedLlm((body) => context.script(body));
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  context.agent = await serveAgent(agentSpec("distill-answers", { natural: true }), {
    components: [context.dataset.spec],
    baseUrls: { dataset: context.dataset.running.url },
    llm: provider,
    componentName: "distill-answers",
    adaptive: { maxSemanticRetries: 0 },
    env: {},
  });
});
test.after.each(({ llm }) => {
  llm.requests.length = 0;
});
test.after(async ({ receiver, agent, dataset, llm }) => {
  await agent.running.close();
  await dataset.close();
  await llm.close();
  await shutdownTelemetry();
  await receiver.close();
});

const eventsOf = ({ receiver }: Context, requestId: string) => naturalRequestEvents(receiver, requestId);
/** The bytes a distillation prompt asks the summary to stay within. */
const askedBytes = (body: any): number => Number(/at most (\d+) bytes/.exec(String(body.messages[0].content))?.[1]);
const stepOf = (body: any): string => /Result of step (\w+)/.exec(userPrompt(body))?.[1] ?? "?";
/** A summary of exactly `bytes` bytes, in lines as a model writes them. */
const summaryText = (step: string, bytes: number): string => {
  const lines = [`SUMMARY-${step}: what the readings say.`];
  for (let i = 0; lines.join("\n").length < bytes; i += 1) lines.push(`- reading ${i} of ${step}: city-${i}, ${i % 40} degrees, quite ordinary.`);
  return lines.join("\n").slice(0, bytes);
};

test("four big results distilled to summaries that fill their targets: the synthesis carries them whole, within the budget", async (context) => {
  const summaries = new Map<string, string>();
  context.script = (body) => {
    const kind = kindOf(body);
    if (kind === "plan") return answer({ steps: [rowsStep("s1", 120), rowsStep("s2", 121), rowsStep("s3", 122), rowsStep("s4", 123)] });
    if (kind === "map") {
      const text = summaryText(stepOf(body), askedBytes(body));
      summaries.set(stepOf(body), text);
      return { text };
    }
    return { text: "Four sets of readings." };
  };
  const { status } = await context.agent.post("/orchestrate/natural", { request: "what do the readings say?" }, { "x-manifold-request-id": "req-fill" });
  assert.is(status, 200);
  assert.is(bodiesOf(context, "map").length, 4, "each 24 KB result is one chunk");
  assert.is(bodiesOf(context, "reduce").length, 0);
  assert.equal([...summaries.keys()].sort(), ["s1", "s2", "s3", "s4"]);
  const [synthesis] = bodiesOf(context, "synthesis");
  for (const [step, text] of summaries) {
    assert.ok(text.length > 15_000, `${step} was asked for ${text.length} bytes`);
    assert.ok(userPrompt(synthesis).includes(JSON.stringify(text).slice(1, -1)), `${step}'s summary is shown whole`);
  }
  assert.not.match(userPrompt(synthesis), /more characters\)/);
  assert.ok(promptSize(synthesis) <= PROMPT_BUDGET, String(promptSize(synthesis)));
  const results = /<tool_output source="results">\n([\s\S]*)\n<\/tool_output>/.exec(userPrompt(synthesis))?.[1] ?? "";
  assert.ok(results.length > 60_000 && Buffer.byteLength(results) <= REQUEST_RESULT_BUDGET, String(results.length));

  const events = await eventsOf(context, "req-fill");
  assert.equal(named(events, "result_trim.synthesis"), [], "the last guard did not cut anything");
  assert.equal(
    named(events, "result_trim.completed").map((a) => [a["step_id"], a["method"], a["content_lost"], a["trimmed_bytes"]]),
    ["s1", "s2", "s3", "s4"].map((s) => [s, "distillation", false, summaries.get(s)!.length]),
  );
});

test("a summary whose escaping makes it outweigh its share is cut to that share, and only that step says content_lost", async (context) => {
  const summaries = new Map<string, string>();
  context.script = (body) => {
    const kind = kindOf(body);
    if (kind === "plan") return answer({ steps: [rowsStep("s1", 130), rowsStep("s2", 131), rowsStep("s3", 132), rowsStep("s4", 133)] });
    if (kind === "map") {
      const step = stepOf(body);
      // s1 quotes everything: each `"` weighs two bytes in the JSON the prompt shows.
      const text = step === "s1" ? `QUOTED-s1 ${'"a" '.repeat(askedBytes(body))}`.slice(0, askedBytes(body)) : summaryText(step, askedBytes(body));
      summaries.set(step, text);
      return { text };
    }
    return { text: "Four sets of readings." };
  };
  const { status } = await context.agent.post("/orchestrate/natural", { request: "what do the readings say, quoted?" }, { "x-manifold-request-id": "req-cut" });
  assert.is(status, 200);
  const prompt = userPrompt(bodiesOf(context, "synthesis")[0]);
  for (const step of ["s2", "s3", "s4"]) assert.ok(prompt.includes(JSON.stringify(summaries.get(step)!).slice(1, -1)), `${step} whole`);
  assert.not.ok(prompt.includes(JSON.stringify(summaries.get("s1")!).slice(1, -1)), "s1 is cut");
  assert.match(prompt, /QUOTED-s1 (\\"a\\" ){1000}/);
  assert.match(prompt, /cut to fit the prompt, its end is not shown/);
  const results = /<tool_output source="results">\n([\s\S]*)\n<\/tool_output>/.exec(prompt)?.[1] ?? "";
  assert.ok(Buffer.byteLength(results) <= REQUEST_RESULT_BUDGET, String(results.length));
  const events = await eventsOf(context, "req-cut");
  assert.equal(named(events, "result_trim.synthesis"), []);
  const trims = named(events, "result_trim.completed");
  assert.equal(
    trims.map((a) => [a["step_id"], a["method"], a["content_lost"]]),
    [
      ["s1", "distillation", true],
      ["s2", "distillation", false],
      ["s3", "distillation", false],
      ["s4", "distillation", false],
    ],
  );
  assert.ok(Number(trims[0]?.["trimmed_bytes"]) > 5000, "s1 keeps its share, not 2,000 characters");
});

test("a map answer cut short (finish_reason length, 40 KB) is a failed distillation: trimmed, content_lost true, not cached", async (context) => {
  context.script = (body) => {
    const kind = kindOf(body);
    if (kind === "plan") return answer({ steps: [rowsStep("s1", 100)] });
    if (kind === "map") return { text: `CUT-SHORT ${"words of a summary ".repeat(2300)}`, finish_reason: "length" };
    return { text: "About 100 readings." };
  };
  for (const id of ["req-length-1", "req-length-2"]) {
    context.llm.requests.length = 0;
    const { status } = await context.agent.post("/orchestrate/natural", { request: "how warm is it?" }, { "x-manifold-request-id": id });
    assert.is(status, 200);
    assert.is(bodiesOf(context, "map").length, 1, `${id}: asked again, nothing was cached`);
    const synthesis = userPrompt(bodiesOf(context, "synthesis")[0]);
    assert.not.match(synthesis, /CUT-SHORT|every part of it read/);
    assert.match(synthesis, /more items\)/);
    const events = await eventsOf(context, id);
    assert.equal(
      named(events, "result_distill.llm_failed").map((a) => [a["step_id"], a["reason"], a["finish_reason"]]),
      [["s1", "incomplete", "length"]],
    );
    assert.equal(named(events, "result_distill.cache_hit"), []);
    const [trim] = named(events, "result_trim.completed");
    assert.equal([trim?.["method"], trim?.["content_lost"]], ["structural", true]);
  }
});

test("an answer longer than the bytes asked (cut by the client) or filtered is a failed distillation", async (context) => {
  const cases: [string, ScriptedEntry, string][] = [
    ["req-long", { text: `TOO-LONG ${"x".repeat(40_000)}` }, "length"],
    ["req-filter", { text: "FILTERED summary", finish_reason: "content_filter" }, "content_filter"],
  ];
  for (const [id, entry, finish] of cases) {
    context.script = (body) => {
      const kind = kindOf(body);
      if (kind === "plan") return answer({ steps: [rowsStep("s1", 100)] });
      if (kind === "map") return entry;
      return { text: "About 100 readings." };
    };
    const { status } = await context.agent.post("/orchestrate/natural", { request: `readings (${id})?` }, { "x-manifold-request-id": id });
    assert.is(status, 200);
    assert.not.match(userPrompt(bodiesOf(context, "synthesis").at(-1)), /TOO-LONG|FILTERED/);
    const events = await eventsOf(context, id);
    assert.equal(
      named(events, "result_distill.llm_failed").map((a) => [a["reason"], a["finish_reason"]]),
      [["incomplete", finish]],
    );
    assert.is(named(events, "result_trim.completed")[0]?.["content_lost"], true);
  }
});

test("an empty answer for one of two chunks stops the distillation before the merge: trimmed, content_lost true", async (context) => {
  context.script = (body) => {
    const kind = kindOf(body);
    // 600 rows of 200 bytes: two chunks at the default prompt budget.
    if (kind === "plan") return answer({ steps: [rowsStep("s1", 600)] });
    if (kind === "map") return { text: /part 2 of/.test(userPrompt(body)) ? "" : "PART-ONE: 300 readings." };
    if (kind === "reduce") return { text: "MERGED: 600 readings." };
    return { text: "600 readings." };
  };
  const { status } = await context.agent.post("/orchestrate/natural", { request: "all readings?" }, { "x-manifold-request-id": "req-empty" });
  assert.is(status, 200);
  assert.is(bodiesOf(context, "map").length, 2);
  assert.is(bodiesOf(context, "reduce").length, 0, "a part nobody summarised is not merged");
  assert.not.match(userPrompt(bodiesOf(context, "synthesis")[0]), /MERGED|PART-ONE/);
  const events = await eventsOf(context, "req-empty");
  assert.equal(
    named(events, "result_distill.llm_failed").map((a) => [a["reason"], a["finish_reason"]]),
    [["incomplete", "empty"]],
  );
  const [trim] = named(events, "result_trim.completed");
  assert.equal([trim?.["method"], trim?.["content_lost"]], ["structural", true]);
});

test.run();
