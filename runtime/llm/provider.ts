/**
 * The one language-model provider of a process, on the `openai` package: it speaks to any
 * OpenAI-compatible endpoint (OpenAI, Azure-style base URLs, Ollama, vLLM, Groq, OpenRouter). The
 * client does the retries (408/409/429/5xx and connection errors, honouring `Retry-After`, capped
 * here so a server cannot park a request for an hour) and the timeout; this module maps its errors
 * to the runtime's codes, streams, counts tokens, and keeps the key out of everything it shows.
 */
import { inspect } from "node:util";
import type OpenAI from "openai";
import { registerSecret, redactSecrets } from "../context/index.js";
import { ManifoldError } from "../errors/index.js";
import { ATTR, getTelemetry, METRIC } from "../telemetry/index.js";
import type { LlmConfig } from "./config.js";
import type { LlmCompletion, LlmProvider, LlmRequest, LlmUsage } from "./types.js";

/** No tokens: what a call without a usage report counts, and the start of a sum. */
export const NO_USAGE: LlmUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** Fetch as the client sees it: a `Retry-After` beyond the cap is rewritten to the cap (the client has no such option). */
const cappedRetryFetch =
  (capMs: number): typeof fetch =>
  async (input, init) => {
    const response = await fetch(input, init);
    if (response.status !== 429 && response.status < 500) return response;
    const header = response.headers.get("retry-after");
    if (header === null) return response;
    const seconds = Number(header);
    const waitMs = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
    if (!(waitMs > capMs)) return response;
    const headers = new Headers(response.headers);
    headers.set("retry-after-ms", String(capMs));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };

/**
 * The client sleeps between retries without watching the signal; the caller hanging up must not
 * wait for that sleep. The abandoned attempt then fails at once on its aborted signal.
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

/** The endpoint's complaint, short and with any registered secret (the key) blanked out. */
function reason(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | undefined;
  const said = typeof body?.message === "string" ? body.message : "";
  return redactSecrets(said.replace(/\s+/g, " ").slice(0, 200));
}

type OpenAIModule = typeof import("openai");

function toError({ default: OpenAI }: OpenAIModule, error: unknown, baseUrl: string, signal: AbortSignal | undefined): ManifoldError {
  if (error instanceof ManifoldError) return error;
  if (error instanceof OpenAI.APIUserAbortError || signal?.aborted === true) return new ManifoldError("ABORTED", "the language model call was aborted");
  if (error instanceof OpenAI.APIConnectionTimeoutError) return new ManifoldError("TIMEOUT", "the language model did not answer within its timeout");
  if (error instanceof OpenAI.APIConnectionError) return new ManifoldError("LLM_ERROR", `could not reach the language model endpoint ${baseUrl}`);
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    const why = reason(error);
    return new ManifoldError("LLM_ERROR", `language model endpoint answered ${error.status}${why === "" ? "" : `: ${why}`}`);
  }
  return new ManifoldError("LLM_ERROR", "the language model answered with something unusable");
}

/** An endpoint that does not take `json_schema` says so with a 400 naming the field. */
const refusesJsonSchema = ({ default: OpenAI }: OpenAIModule, error: unknown): boolean =>
  error instanceof OpenAI.APIError && error.status === 400 && /response_format|json_schema/i.test(JSON.stringify(error.error ?? error.message));

export function createLlmProvider(config: LlmConfig): LlmProvider {
  const { baseUrl, model, timeoutMs, maxRetries, headers, query } = config;
  registerSecret(config.apiKey);
  // Loaded on the first call: an agent without a model (and gen, which reads the feature list) never pays for it.
  let loaded: Promise<{ module: OpenAIModule; client: OpenAI }> | undefined;
  const load = () =>
    (loaded ??= import("openai").then((module) => ({
      module,
      client: new module.default({
        apiKey: config.apiKey,
        baseURL: baseUrl,
        timeout: timeoutMs,
        maxRetries,
        defaultHeaders: headers,
        defaultQuery: query,
        fetch: cappedRetryFetch(config.maxRetryWaitMs),
        // The client's own logger would print request details; the runtime logs what it decides to.
        logLevel: "off",
      }),
    })));
  let structured = config.structuredOutput;
  const shown = { model, baseUrl };

  const call = async (client: OpenAI, request: LlmRequest, format: "json_schema" | "json_object"): Promise<Omit<LlmCompletion, "duration_ms">> => {
    const { messages, json, temperature, maxTokens, signal, onChunk } = request;
    const body = {
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
    const options = signal === undefined ? {} : { signal };
    if (onChunk === undefined) {
      const answer = await client.chat.completions.create({ ...body, stream: false }, options);
      const choice = answer.choices[0];
      return {
        text: choice?.message.content ?? "",
        usage: usageOf(answer.usage),
        model: answer.model || model,
        finish_reason: choice?.finish_reason ?? undefined,
        streamed: false,
      };
    }
    const stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, options);
    let text = "";
    let usage = NO_USAGE;
    let finish: string | undefined;
    let answeredBy = model;
    for await (const chunk of stream) {
      if (chunk.model) answeredBy = chunk.model;
      if (chunk.usage) usage = usageOf(chunk.usage);
      const choice = chunk.choices[0];
      if (choice?.finish_reason) finish = choice.finish_reason;
      const piece = choice?.delta?.content;
      if (piece) {
        text += piece;
        onChunk(piece);
      }
    }
    return { text, usage, model: answeredBy, finish_reason: finish, streamed: true };
  };

  const provider: LlmProvider & { [inspect.custom]: () => unknown } = {
    model,
    baseUrl,
    async complete(request) {
      const started = performance.now();
      const labels = { [ATTR.LLM_MODEL]: model, [ATTR.LLM_PHASE]: request.phase };
      const metrics = getTelemetry().metrics;
      const { module, client } = await load();
      try {
        let answer: Omit<LlmCompletion, "duration_ms">;
        try {
          answer = await untilAborted(call(client, request, structured), request.signal);
        } catch (error) {
          if (request.json === undefined || structured !== "json_schema" || !refusesJsonSchema(module, error)) throw error;
          // Remembered for the provider's life: the endpoint will not learn json_schema mid-run.
          structured = "json_object";
          answer = await untilAborted(call(client, request, structured), request.signal);
        }
        const duration_ms = performance.now() - started;
        metrics.counter(METRIC.LLM_REQUESTS, 1, { ...labels, [ATTR.OUTCOME]: "ok" });
        metrics.counter(METRIC.LLM_TOKENS, answer.usage.prompt_tokens, { ...labels, [ATTR.LLM_TOKEN_TYPE]: "input" });
        metrics.counter(METRIC.LLM_TOKENS, answer.usage.completion_tokens, { ...labels, [ATTR.LLM_TOKEN_TYPE]: "output" });
        metrics.histogram(METRIC.LLM_DURATION, duration_ms, labels);
        return { ...answer, duration_ms };
      } catch (error) {
        const failure = toError(module, error, baseUrl, request.signal);
        metrics.counter(METRIC.LLM_REQUESTS, 1, { ...labels, [ATTR.OUTCOME]: failure.code });
        metrics.histogram(METRIC.LLM_DURATION, performance.now() - started, labels);
        throw failure;
      }
    },
    toJSON: () => shown,
    [inspect.custom]: () => shown,
  };
  return provider;
}
