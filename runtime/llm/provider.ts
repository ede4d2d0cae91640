/**
 * The one language-model provider of a process, on the `openai` package: it speaks to any
 * OpenAI-compatible endpoint (OpenAI, Azure-style base URLs, Ollama, vLLM, Groq, OpenRouter). The
 * call has one deadline on the provider's clock, retries included; retries (408/409/429/5xx and
 * connection errors, honouring `Retry-After`, capped so a server cannot park a request for an hour)
 * wait on that clock too, and a 429 cools the whole provider down (retry.ts, cooldown.ts). This module
 * maps the client's errors to the runtime's codes, streams, counts tokens, and keeps the key and the
 * endpoint's answers out of everything it shows.
 */
import { inspect } from "node:util";
import type OpenAI from "openai";
import { registerSecret } from "../context/index.js";
import { ManifoldError } from "../errors/index.js";
import { ATTR, getTelemetry, METRIC } from "../telemetry/index.js";
import { systemClock, type Clock } from "../util/index.js";
import type { LlmConfig } from "./config.js";
import { createCooldown } from "./cooldown.js";
import { cutUtf8 } from "./debug/index.js";
import { checkEmbeddingInput, DEFAULT_EMBEDDING_MODEL, vectorsOf } from "./embeddings.js";
import { boundedFetch, DEFAULT_MAX_OUTPUT_BYTES } from "./output.js";
import { attemptMarginMs, createDeadline, withRetries, type Deadline, type OpenAIModule, type RetryOptions } from "./retry.js";
import type { EmbeddingRequest, EmbeddingResult, LlmCompletion, LlmProvider, LlmRequest, LlmUsage } from "./types.js";

/** No tokens: what a call without a usage report counts, and the start of a sum. */
export const NO_USAGE: LlmUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * The caller hanging up must not wait for the attempt in flight (or a connection that never answers):
 * the call rejects at once, and the abandoned attempt then fails on its aborted signal.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(new ManifoldError("ABORTED", "the language model call was aborted"));
  }
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(new ManifoldError("ABORTED", "the language model call was aborted"));
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

function usageOf(usage: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null | undefined): LlmUsage {
  if (usage === null || usage === undefined) return NO_USAGE;
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: usage.total_tokens ?? prompt + completion };
}

/**
 * The runtime's error for what the client threw. An endpoint's answer body never goes into it (issue
 * 32 L6): it may quote the key, a prefix of it, or the endpoint's internals, and errors reach clients.
 */
function toError({ default: OpenAI }: OpenAIModule, error: unknown, baseUrl: string, signal: AbortSignal | undefined, deadline: Deadline): ManifoldError {
  if (signal?.aborted === true) return new ManifoldError("ABORTED", "the language model call was aborted");
  if (deadline.passed() || error instanceof OpenAI.APIConnectionTimeoutError)
    return new ManifoldError("TIMEOUT", "the language model did not answer within its timeout");
  if (error instanceof ManifoldError) return error;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof ManifoldError) return cause;
  if (error instanceof OpenAI.APIUserAbortError) return new ManifoldError("ABORTED", "the language model call was aborted");
  if (error instanceof OpenAI.APIConnectionError) return new ManifoldError("LLM_ERROR", `could not reach the language model endpoint ${baseUrl}`);
  if (error instanceof OpenAI.APIError && error.status !== undefined) return new ManifoldError("LLM_ERROR", `language model endpoint answered ${error.status}`);
  return new ManifoldError("LLM_ERROR", "the language model answered with something unusable");
}

/** An endpoint that does not take `json_schema` says so with a 400 naming the field. */
const refusesJsonSchema = ({ default: OpenAI }: OpenAIModule, error: unknown): boolean =>
  error instanceof OpenAI.APIError && error.status === 400 && /response_format|json_schema/i.test(JSON.stringify(error.error ?? error.message));

export interface LlmProviderOptions {
  /** What retry waits are measured on. @defaultValue systemClock */
  readonly clock?: Clock;
}

/** The client, built on the first call: an agent without a model (and gen, which reads the feature list) never loads `openai`. */
function lazyClient(config: LlmConfig): () => Promise<{ module: OpenAIModule; client: OpenAI }> {
  let loaded: Promise<{ module: OpenAIModule; client: OpenAI }> | undefined;
  return () =>
    (loaded ??= import("openai").then((module) => ({
      module,
      client: new module.default({
        apiKey: config.apiKey,
        baseURL: config.baseUrl,
        // A backstop only: the call's deadline on the provider's clock is what ends it (createDeadline).
        timeout: 2 * config.timeoutMs,
        // Retried here, on the provider's clock (retry.ts).
        maxRetries: 0,
        defaultHeaders: config.headers,
        defaultQuery: config.query,
        // The client's own logger would print request details; the runtime logs what it decides to.
        logLevel: "off",
        // No answer body is read past its cap (output.ts).
        fetch: boundedFetch(),
      }),
    })));
}

/** The chat completion request's body; `format` says how a JSON answer is asked for. */
function requestBody(model: string, { messages, json, temperature, maxTokens }: LlmRequest, format: "json_schema" | "json_object") {
  return {
    model,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    ...(json === undefined
      ? {}
      : format === "json_schema"
        ? { response_format: { type: "json_schema" as const, json_schema: { name: json.name, schema: { ...json.schema }, strict: false } } }
        : { response_format: { type: "json_object" as const } }),
  };
}

/**
 * Reads a streamed answer, handing each piece of text to `onChunk` as it comes, until the text holds
 * `maxBytes`: then the last piece is cut, the stream is left (which closes it) and the answer is
 * marked truncated.
 */
async function readStream(
  stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
  model: string,
  onChunk: (piece: string) => void,
  maxBytes: number,
): Promise<Omit<LlmCompletion, "duration_ms">> {
  let text = "";
  let bytes = 0;
  let usage = NO_USAGE;
  let finish: string | undefined;
  let answeredBy = model;
  for await (const chunk of stream) {
    if (chunk.model) answeredBy = chunk.model;
    if (chunk.usage) usage = usageOf(chunk.usage);
    const choice = chunk.choices[0];
    if (choice?.finish_reason) finish = choice.finish_reason;
    const piece = choice?.delta?.content;
    if (!piece) continue;
    const size = Buffer.byteLength(piece);
    if (bytes + size > maxBytes) {
      const last = cutUtf8(piece, maxBytes - bytes).text;
      text += last;
      if (last !== "") onChunk(last);
      return { text, usage, model: answeredBy, finish_reason: "length", streamed: true, truncated: true };
    }
    bytes += size;
    text += piece;
    onChunk(piece);
  }
  return { text, usage, model: answeredBy, finish_reason: finish, streamed: true };
}

interface CallSettings {
  readonly module: OpenAIModule;
  readonly client: OpenAI;
  readonly model: string;
  readonly retry: Omit<RetryOptions, "signal">;
  readonly deadline: Deadline;
}

/** One completion: the request retried until it is answered, then the answer read (a stream is not retried once it has begun), all before the deadline. */
async function call(
  { module, client, model, retry, deadline }: CallSettings,
  request: LlmRequest,
  format: "json_schema" | "json_object",
): Promise<Omit<LlmCompletion, "duration_ms">> {
  const { onChunk, maxOutputBytes = DEFAULT_MAX_OUTPUT_BYTES } = request;
  const body = requestBody(model, request, format);
  const options = { signal: deadline.signal };
  const retrying = { ...retry, signal: deadline.signal, deadline: deadline.at };
  if (onChunk === undefined) {
    const answer = await withRetries(module, () => deadline.during(() => client.chat.completions.create({ ...body, stream: false }, options)), retrying);
    const choice = answer.choices[0];
    const kept = cutUtf8(choice?.message.content ?? "", maxOutputBytes);
    return {
      text: kept.text,
      usage: usageOf(answer.usage),
      model: answer.model || model,
      finish_reason: kept.cut ? "length" : (choice?.finish_reason ?? undefined),
      streamed: false,
      ...(kept.cut ? { truncated: true as const } : {}),
    };
  }
  const stream = await withRetries(
    module,
    () => deadline.during(() => client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, options)),
    retrying,
  );
  return deadline.during(() => readStream(stream, model, onChunk, maxOutputBytes));
}

/**
 * The provider's `embed`: `POST /embeddings` through the same client, deadline, retries and cooldown
 * as `complete`, failing with the same codes. Floats are asked for by name: the client's default
 * (base64) is not understood by every OpenAI-compatible server.
 */
function embedder(
  config: LlmConfig,
  load: ReturnType<typeof lazyClient>,
  retry: Omit<RetryOptions, "signal">,
  clock: Clock,
): (request: EmbeddingRequest) => Promise<EmbeddingResult> {
  return async (request) => {
    const input = checkEmbeddingInput(request.input);
    const model = request.model ?? config.embeddingModel ?? DEFAULT_EMBEDDING_MODEL;
    const started = performance.now();
    const labels = { [ATTR.LLM_MODEL]: model, [ATTR.LLM_PHASE]: "embedding" };
    const metrics = getTelemetry().metrics;
    const { module, client } = await load();
    const deadline = createDeadline(clock, config.timeoutMs, request.signal);
    const retrying = { ...retry, signal: deadline.signal, deadline: deadline.at };
    try {
      const create = () => client.embeddings.create({ model, input: [...input], encoding_format: "float" }, { signal: deadline.signal });
      const answer = await untilAborted(
        withRetries(module, () => deadline.during(create), retrying),
        request.signal,
      );
      const vectors = vectorsOf(answer, input.length);
      const duration_ms = performance.now() - started;
      metrics.counter(METRIC.LLM_REQUESTS, 1, { ...labels, [ATTR.OUTCOME]: "ok" });
      metrics.counter(METRIC.LLM_TOKENS, answer.usage?.prompt_tokens ?? 0, { ...labels, [ATTR.LLM_TOKEN_TYPE]: "input" });
      metrics.histogram(METRIC.LLM_DURATION, duration_ms, labels);
      return { vectors, model: answer.model || model, usage: usageOf(answer.usage), duration_ms };
    } catch (error) {
      const failure = toError(module, error, config.baseUrl, request.signal, deadline);
      metrics.counter(METRIC.LLM_REQUESTS, 1, { ...labels, [ATTR.OUTCOME]: failure.code });
      metrics.histogram(METRIC.LLM_DURATION, performance.now() - started, labels);
      throw failure;
    }
  };
}

export function createLlmProvider(config: LlmConfig, { clock = systemClock }: LlmProviderOptions = {}): LlmProvider {
  const { baseUrl, model } = config;
  registerSecret(config.apiKey);
  const load = lazyClient(config);
  const retry = {
    maxRetries: config.maxRetries,
    maxRetryWaitMs: config.maxRetryWaitMs,
    clock,
    minAttemptMs: attemptMarginMs(config.timeoutMs),
    // One per provider: every call it makes waits out the same rate-limit cooldown.
    cooldown: createCooldown(clock),
  };
  let structured = config.structuredOutput;
  const shown = { model, baseUrl };

  const provider: LlmProvider & { [inspect.custom]: () => unknown } = {
    model,
    baseUrl,
    async complete(request) {
      const started = performance.now();
      const labels = { [ATTR.LLM_MODEL]: model, [ATTR.LLM_PHASE]: request.phase };
      const metrics = getTelemetry().metrics;
      const { module, client } = await load();
      // One deadline for the call, retries and the json_object fallback included (issue 32 L1).
      const deadline = createDeadline(clock, config.timeoutMs, request.signal);
      const settings: CallSettings = { module, client, model, retry, deadline };
      try {
        let answer: Omit<LlmCompletion, "duration_ms">;
        try {
          answer = await untilAborted(call(settings, request, structured), request.signal);
        } catch (error) {
          if (request.json === undefined || structured !== "json_schema" || !refusesJsonSchema(module, error)) throw error;
          // Remembered for the provider's life: the endpoint will not learn json_schema mid-run.
          structured = "json_object";
          answer = await untilAborted(call(settings, request, structured), request.signal);
        }
        const duration_ms = performance.now() - started;
        metrics.counter(METRIC.LLM_REQUESTS, 1, { ...labels, [ATTR.OUTCOME]: "ok" });
        metrics.counter(METRIC.LLM_TOKENS, answer.usage.prompt_tokens, { ...labels, [ATTR.LLM_TOKEN_TYPE]: "input" });
        metrics.counter(METRIC.LLM_TOKENS, answer.usage.completion_tokens, { ...labels, [ATTR.LLM_TOKEN_TYPE]: "output" });
        metrics.histogram(METRIC.LLM_DURATION, duration_ms, labels);
        return { ...answer, duration_ms };
      } catch (error) {
        const failure = toError(module, error, baseUrl, request.signal, deadline);
        metrics.counter(METRIC.LLM_REQUESTS, 1, { ...labels, [ATTR.OUTCOME]: failure.code });
        metrics.histogram(METRIC.LLM_DURATION, performance.now() - started, labels);
        throw failure;
      }
    },
    embed: embedder(config, load, retry, clock),
    toJSON: () => shown,
    [inspect.custom]: () => shown,
  };
  return provider;
}
