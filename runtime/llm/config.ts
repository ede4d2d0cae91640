/**
 * Where the language model is, in DESIGN §5.1's precedence: the `serve({ llm })` option, then
 * `MANIFOLD_LLM_BASE_URL` / `MANIFOLD_LLM_API_KEY` / `MANIFOLD_LLM_MODEL`, then the `openai` package's
 * own `OPENAI_BASE_URL` / `OPENAI_API_KEY`, and for the model the manifest's last. Nothing configured
 * is a normal state: the agent serves everything else and the model's endpoints answer 503.
 */
import { ManifoldError } from "../errors/index.js";
import { parseDuration } from "../spec/index.js";

/** The variables that configure a model, as error messages and logs name them. */
export const LLM_VARIABLES = "MANIFOLD_LLM_BASE_URL / MANIFOLD_LLM_API_KEY / MANIFOLD_LLM_MODEL (or OPENAI_API_KEY / OPENAI_BASE_URL)";

export const DEFAULT_LLM_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_LLM_MODEL = "gpt-4o-mini";

export interface LlmOptions {
  /** An OpenAI-compatible base URL (`http://127.0.0.1:11434/v1` for Ollama). @defaultValue https://api.openai.com/v1 */
  readonly baseUrl?: string;
  readonly apiKey?: string;
  readonly model?: string;
  /** Per call, retries included. @defaultValue `MANIFOLD_LLM_TIMEOUT`, else 60 s */
  readonly timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors. @defaultValue `MANIFOLD_LLM_MAX_RETRIES`, else 2 */
  readonly maxRetries?: number;
  /** The longest `Retry-After` obeyed as given; a longer one waits this long. @defaultValue 20 s */
  readonly maxRetryWaitMs?: number;
  /** How planning asks for JSON. @defaultValue json_schema, falling back to json_object on endpoints that refuse it */
  readonly structuredOutput?: "json_schema" | "json_object";
  /** Extra headers on every call (Azure-style endpoints take `api-key`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extra query parameters on every call (Azure-style `api-version`). */
  readonly query?: Readonly<Record<string, string>>;
  /** The model `embed` asks for (vector retrieval). @defaultValue `MANIFOLD_EMBEDDING_MODEL`, else text-embedding-3-small */
  readonly embeddingModel?: string;
}

export interface LlmConfig {
  readonly baseUrl: string;
  /** A placeholder for endpoints that take none (the `openai` client needs a value). */
  readonly apiKey: string;
  readonly model: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly maxRetryWaitMs: number;
  readonly structuredOutput: "json_schema" | "json_object";
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** Unset: `embed` uses text-embedding-3-small. */
  readonly embeddingModel?: string;
}

export interface ResolveLlmOptions {
  readonly option?: LlmOptions;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The manifest's `orchestration.natural.model`: the last word on the model. */
  readonly manifestModel?: string;
}

const text = (value: string | undefined): string | undefined => (value === undefined || value.trim() === "" ? undefined : value.trim());

function checkBaseUrl(value: string, from: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(`${from} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new RangeError(`${from} must be an http(s) URL`);
  // Credentials in a URL end up in logs and error messages; the key has its own setting.
  if (url.username !== "" || url.password !== "") throw new RangeError(`${from} must not hold credentials: set the API key on its own`);
  return value.replace(/\/+$/, "");
}

/** The embeddings model: the option, then `MANIFOLD_EMBEDDING_MODEL`; unset leaves the provider's default. */
function embeddingModelOf(option: LlmOptions, env: Readonly<Record<string, string | undefined>>): { embeddingModel?: string } {
  const model = text(option.embeddingModel) ?? text(env["MANIFOLD_EMBEDDING_MODEL"]);
  return model === undefined ? {} : { embeddingModel: model };
}

/** The resolved configuration, or undefined when neither a key nor a base URL is set anywhere. */
export function resolveLlmConfig({ option = {}, env = process.env, manifestModel }: ResolveLlmOptions = {}): LlmConfig | undefined {
  const fromEnvBase = text(env["MANIFOLD_LLM_BASE_URL"]) ?? text(env["OPENAI_BASE_URL"]);
  const base = text(option.baseUrl) ?? fromEnvBase;
  const key = text(option.apiKey) ?? text(env["MANIFOLD_LLM_API_KEY"]) ?? text(env["OPENAI_API_KEY"]);
  if (base === undefined && key === undefined) return undefined;
  const baseFrom =
    text(option.baseUrl) !== undefined ? "llm.baseUrl" : text(env["MANIFOLD_LLM_BASE_URL"]) !== undefined ? "MANIFOLD_LLM_BASE_URL" : "OPENAI_BASE_URL";

  let timeoutMs = option.timeoutMs;
  if (timeoutMs === undefined) {
    const raw = text(env["MANIFOLD_LLM_TIMEOUT"]);
    timeoutMs = raw === undefined ? 60_000 : parseDuration(raw);
    if (timeoutMs === undefined) throw new RangeError("MANIFOLD_LLM_TIMEOUT must be a duration such as 60s or 2m");
  }
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new RangeError("the language model timeout must be a positive number of milliseconds");
  let maxRetries = option.maxRetries;
  if (maxRetries === undefined) {
    const raw = text(env["MANIFOLD_LLM_MAX_RETRIES"]);
    maxRetries = raw === undefined ? 2 : Number(raw);
    if (!Number.isSafeInteger(maxRetries)) throw new RangeError("MANIFOLD_LLM_MAX_RETRIES must be an integer from 0 to 10");
  }
  if (!Number.isSafeInteger(maxRetries) || maxRetries < 0 || maxRetries > 10)
    throw new RangeError("the language model's maxRetries must be an integer from 0 to 10");
  const maxRetryWaitMs = option.maxRetryWaitMs ?? 20_000;
  if (!Number.isSafeInteger(maxRetryWaitMs) || maxRetryWaitMs < 0) throw new RangeError("maxRetryWaitMs must be a non-negative integer");
  const structuredOutput = option.structuredOutput ?? "json_schema";
  if (structuredOutput !== "json_schema" && structuredOutput !== "json_object") throw new RangeError("structuredOutput must be json_schema or json_object");

  return {
    baseUrl: checkBaseUrl(base ?? DEFAULT_LLM_BASE_URL, base === undefined ? "the default base URL" : baseFrom),
    apiKey: key ?? "unused",
    model: text(option.model) ?? text(env["MANIFOLD_LLM_MODEL"]) ?? text(manifestModel) ?? DEFAULT_LLM_MODEL,
    timeoutMs,
    maxRetries,
    maxRetryWaitMs,
    structuredOutput,
    headers: { ...option.headers },
    query: { ...option.query },
    ...embeddingModelOf(option, env),
  };
}

/** 503 LLM_UNAVAILABLE for something that needs a model when none is configured; names the variables. */
export function llmUnavailable(what: string): ManifoldError {
  return new ManifoldError("LLM_UNAVAILABLE", `${what} needs a language model: set ${LLM_VARIABLES}`);
}
