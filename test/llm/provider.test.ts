/**
 * The language-model provider: the real `openai` client against the scripted OpenAI-compatible
 * server on loopback. Answers, streaming, JSON requests and the json_object fallback, retries on 429
 * and 5xx, abort, timeout, the error codes, and a key that shows up nowhere but in the Authorization
 * header it is meant for.
 */
import { inspect } from "node:util";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { ManifoldError } from "../../runtime/errors/index.js";
import { createLlmProvider, resolveLlmConfig, type LlmOptions, type LlmProvider } from "../../runtime/llm/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import type { Clock } from "../../runtime/util/index.js";
import { createManualClock, type ManualClock } from "../support/clock.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { eventually, within } from "../support/wait.js";

const KEY = "sk-test-PROVIDER-secret-9876";
const MESSAGES = [
  { role: "system" as const, content: "be brief" },
  { role: "user" as const, content: "hello there" },
];

interface Context {
  llm: ScriptedLlm;
  provider: (options?: LlmOptions, clock?: Clock) => LlmProvider;
}
const test = suite<Context>("llm provider", {} as Context);

test.before.each(async (context) => {
  context.llm = await startScriptedLlm();
  context.provider = (options = {}, clock) =>
    createLlmProvider(
      resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: KEY, model: "m1", maxRetries: 0, ...options }, env: {} })!,
      clock === undefined ? {} : { clock },
    );
});
test.after.each(async ({ llm }) => {
  await llm.close();
});

/**
 * A manual clock that remembers how long each timer set on it was: a retry's wait is told from the
 * call's deadline timer (armed while an attempt is in flight) by its length.
 */
function recording(clock = createManualClock()): ManualClock & { readonly set: number[] } {
  const set: number[] = [];
  return {
    ...clock,
    setTimeout: (fn, ms) => {
      set.push(ms);
      return clock.setTimeout(fn, ms);
    },
    set,
  };
}

async function failure(promise: Promise<unknown>): Promise<ManifoldError> {
  try {
    await promise;
  } catch (error) {
    return error as ManifoldError;
  }
  throw new Error("expected a rejection");
}

test("an answer with its usage, model and finish reason; the key goes only into Authorization", async ({ llm, provider }) => {
  llm.reply({ text: "hi", usage: { prompt_tokens: 7, completion_tokens: 1 }, finish_reason: "stop" });
  const answer = await provider().complete({ phase: "synthesis", messages: MESSAGES, temperature: 0.2, maxTokens: 50 });
  assert.equal(
    { ...answer, duration_ms: 0 },
    {
      text: "hi",
      usage: { prompt_tokens: 7, completion_tokens: 1, total_tokens: 8 },
      model: "m1",
      finish_reason: "stop",
      streamed: false,
      duration_ms: 0,
    },
  );
  assert.ok(answer.duration_ms > 0);
  const { body, headers } = llm.requests[0]!;
  assert.equal([body.model, body.temperature, body.max_tokens, body.messages], ["m1", 0.2, 50, MESSAGES]);
  assert.is(headers["authorization"], `Bearer ${KEY}`);
  assert.is(body.response_format, undefined, "a text request carries no response_format");
});

test("streaming: pieces in order through onChunk, the text their join, usage from the last chunk", async ({ llm, provider }) => {
  llm.reply({ text: "one two three four", chunks: 4, usage: { prompt_tokens: 5, completion_tokens: 4 } });
  const pieces: string[] = [];
  const answer = await provider().complete({ phase: "synthesis_streaming", messages: MESSAGES, onChunk: (p) => pieces.push(p) });
  assert.ok(pieces.length >= 3, JSON.stringify(pieces));
  assert.is(pieces.join(""), "one two three four");
  assert.is(answer.text, "one two three four");
  assert.equal(answer.usage, { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
  assert.is(answer.streamed, true);
  assert.equal(llm.requests[0]!.body.stream_options, { include_usage: true });
});

test("a JSON request asks for json_schema; an endpoint that refuses it gets json_object, remembered", async ({ llm, provider }) => {
  const model = provider();
  const json = { name: "plan", schema: { type: "object" } };
  llm.reply({ text: "{}" });
  await model.complete({ phase: "plan_generation", messages: MESSAGES, json });
  assert.equal(llm.requests[0]!.body.response_format, { type: "json_schema", json_schema: { name: "plan", schema: { type: "object" }, strict: false } });
  llm.reply({ status: 400, body: { error: { message: "response_format json_schema is not supported by this model" } } }, { text: "{}" }, { text: "{}" });
  await model.complete({ phase: "plan_generation", messages: MESSAGES, json });
  await model.complete({ phase: "plan_generation", messages: MESSAGES, json });
  assert.equal(
    llm.requests.slice(1).map((r) => r.body.response_format.type),
    ["json_schema", "json_object", "json_object"],
  );
});

test("429 is retried after its Retry-After; 5xx is retried; exhausted retries are LLM_ERROR with the status", async ({ llm, provider }) => {
  const clock = recording();
  llm.reply({ status: 429, headers: { "retry-after": "1" } }, { text: "ok" });
  const answering = provider({ maxRetries: 2 }, clock).complete({ phase: "synthesis", messages: MESSAGES });
  await eventually("the retry's wait", () => clock.set.includes(1000));
  await clock.advance(999);
  assert.is(llm.requests.length, 1, "not retried before the second Retry-After asked for has passed");
  await clock.advance(1);
  const answer = await within("the retried answer", answering);
  assert.is(answer.text, "ok");
  assert.is(llm.requests.length, 2);

  llm.reply({ status: 503, headers: { "retry-after-ms": "10" } }, { text: "back" });
  assert.is((await provider({ maxRetries: 1 }).complete({ phase: "synthesis", messages: MESSAGES })).text, "back");

  const before = llm.requests.length;
  llm.reply(
    { status: 500, headers: { "retry-after-ms": "5" } },
    { status: 500, headers: { "retry-after-ms": "5" }, body: { error: { message: "boom inside" } } },
  );
  const error = await failure(provider({ maxRetries: 1 }).complete({ phase: "synthesis", messages: MESSAGES }));
  assert.is(error.code, "LLM_ERROR");
  // The endpoint's words stay out of the error (issue 32 L6): it names the status only.
  assert.is(error.message, "language model endpoint answered 500");
  assert.is(llm.requests.length - before, 2, "one try and one retry");
});

test("a Retry-After of an hour is capped, not obeyed; the caller can abort during the wait", async ({ llm, provider }) => {
  const clock = recording();
  llm.reply({ status: 429, headers: { "retry-after": "3600" } }, { text: "on time" });
  const answering = provider({ maxRetries: 1, maxRetryWaitMs: 200 }, clock).complete({ phase: "synthesis", messages: MESSAGES });
  await eventually("the retry's wait", () => clock.set.includes(200));
  await clock.advance(199);
  assert.is(llm.requests.length, 1, "not retried before the cap");
  await clock.advance(1);
  assert.is((await within("the retried answer", answering)).text, "on time", "retried at the cap, not after the hour asked for");

  llm.reply({ status: 429, headers: { "retry-after": "3" } });
  const controller = new AbortController();
  const failing = failure(provider({ maxRetries: 1 }, clock).complete({ phase: "synthesis", messages: MESSAGES, signal: controller.signal }));
  await eventually("the retry's wait", () => clock.set.includes(3000));
  controller.abort();
  // The clock never moves: only the abort can end the 3 s wait the server asked for.
  const error = await within("the aborted call", failing);
  assert.is(error.code, "ABORTED");
  assert.is(llm.requests.length, 3, "no retry after the abort");
});

test("abort through the signal is ABORTED at once and not retried; a timeout is TIMEOUT", async ({ llm, provider }) => {
  llm.reply({ hang: true });
  const controller = new AbortController();
  const aborting = failure(provider({ maxRetries: 2 }).complete({ phase: "synthesis", messages: MESSAGES, signal: controller.signal }));
  await eventually("the hanging request", () => llm.requests.length === 1);
  controller.abort();
  // The request hangs until the 60 s timeout: the abort is what ends it (ABORTED, not TIMEOUT).
  const aborted = await within("the aborted call", aborting);
  assert.is(aborted.code, "ABORTED");
  assert.is(llm.requests.length, 1);

  llm.reply({ hang: true });
  const timedOut = await failure(provider({ timeoutMs: 200 }).complete({ phase: "synthesis", messages: MESSAGES }));
  assert.is(timedOut.code, "TIMEOUT");
});

test("an unreachable endpoint is LLM_ERROR naming the base URL, not the key", async () => {
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: "http://127.0.0.1:9/v1", apiKey: KEY, maxRetries: 0 }, env: {} })!);
  const error = await failure(provider.complete({ phase: "synthesis", messages: MESSAGES }));
  assert.is(error.code, "LLM_ERROR");
  assert.match(error.message, /could not reach the language model endpoint http:\/\/127\.0\.0\.1:9\/v1/);
});

test("the key appears in no error, serialisation, inspection or log line", async ({ llm, provider }) => {
  const lines: string[] = [];
  const log = createLogger({ component: "llm-test", env: {}, write: (line) => void lines.push(line) });
  const model = provider();
  llm.reply({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } });
  const error = await failure(model.complete({ phase: "plan_generation", messages: MESSAGES }));
  assert.is(error.code, "LLM_ERROR");
  assert.match(error.message, /401/);
  log.error("model call failed", { error, provider: model, config: resolveLlmConfig({ option: { apiKey: KEY }, env: {} }) });
  log.info(`provider ${inspect(model)} ${JSON.stringify(model)}`);
  const shown = [error.message, JSON.stringify(model), inspect(model), inspect(model, { showHidden: true, depth: 5 }), ...lines].join("\n");
  assert.not.ok(shown.includes(KEY), shown);
  assert.equal(JSON.parse(JSON.stringify(model)), { model: "m1", baseUrl: llm.baseUrl });
  assert.ok(lines.length === 2);
});

test.run();

const config = suite("llm config");

config("precedence: option > MANIFOLD_LLM_* > OPENAI_* > manifest model > default", () => {
  const env = {
    MANIFOLD_LLM_BASE_URL: "http://manifold.example/v1",
    MANIFOLD_LLM_API_KEY: "k-manifold",
    MANIFOLD_LLM_MODEL: "m-manifold",
    OPENAI_BASE_URL: "http://openai.example/v1",
    OPENAI_API_KEY: "k-openai",
  };
  const pick = (c: ReturnType<typeof resolveLlmConfig>) => [c?.baseUrl, c?.apiKey, c?.model];
  assert.equal(
    pick(resolveLlmConfig({ option: { baseUrl: "http://option.example/v1/", apiKey: "k-option", model: "m-option" }, env, manifestModel: "m-manifest" })),
    ["http://option.example/v1", "k-option", "m-option"],
  );
  assert.equal(pick(resolveLlmConfig({ env, manifestModel: "m-manifest" })), ["http://manifold.example/v1", "k-manifold", "m-manifold"]);
  assert.equal(pick(resolveLlmConfig({ env: { OPENAI_BASE_URL: env.OPENAI_BASE_URL, OPENAI_API_KEY: env.OPENAI_API_KEY }, manifestModel: "m-manifest" })), [
    "http://openai.example/v1",
    "k-openai",
    "m-manifest",
  ]);
  assert.equal(pick(resolveLlmConfig({ env: { OPENAI_API_KEY: "k" } })), ["https://api.openai.com/v1", "k", "gpt-4o-mini"]);
});

config("a base URL alone (Ollama, vLLM) is configured; nothing at all is not", () => {
  const ollama = resolveLlmConfig({ env: { MANIFOLD_LLM_BASE_URL: "http://127.0.0.1:11434/v1", MANIFOLD_LLM_MODEL: "llama3.1" } });
  assert.equal([ollama?.baseUrl, ollama?.model], ["http://127.0.0.1:11434/v1", "llama3.1"]);
  assert.is(resolveLlmConfig({ env: {} }), undefined);
  assert.is(resolveLlmConfig({ env: { OPENAI_API_KEY: " ", MANIFOLD_LLM_BASE_URL: "" } }), undefined, "blank values are unset");
});

config("timeouts, retries and URLs are checked; messages never echo the key", () => {
  const base = { MANIFOLD_LLM_API_KEY: KEY };
  assert.is(resolveLlmConfig({ env: { ...base, MANIFOLD_LLM_TIMEOUT: "2m" } })?.timeoutMs, 120_000);
  assert.is(resolveLlmConfig({ env: { ...base, MANIFOLD_LLM_MAX_RETRIES: "0" } })?.maxRetries, 0);
  for (const [env, pattern] of [
    [{ ...base, MANIFOLD_LLM_TIMEOUT: "soon" }, /MANIFOLD_LLM_TIMEOUT/],
    [{ ...base, MANIFOLD_LLM_MAX_RETRIES: "11" }, /maxRetries/],
    [{ ...base, MANIFOLD_LLM_MAX_RETRIES: "x" }, /MANIFOLD_LLM_MAX_RETRIES/],
    [{ ...base, MANIFOLD_LLM_BASE_URL: "ftp://x" }, /MANIFOLD_LLM_BASE_URL must be an http/],
    [{ ...base, MANIFOLD_LLM_BASE_URL: `http://user:${KEY}@host/v1` }, /must not hold credentials/],
  ] as const) {
    try {
      resolveLlmConfig({ env });
      assert.unreachable(`accepted ${JSON.stringify(env)}`);
    } catch (error) {
      assert.instance(error, RangeError);
      assert.match((error as Error).message, pattern);
      assert.not.ok((error as Error).message.includes(KEY));
    }
  }
});

config.run();
