/**
 * Retries of a language-model request, on the provider's clock. The `openai` client is built with no
 * retries of its own (its waits are real timers a test cannot drive, and do not watch the caller's
 * signal); the rules are the client's: 408, 409, 429 and 5xx answers and connection failures are
 * retried, `x-should-retry` overrides the status, a server's `retry-after-ms` / `Retry-After` is
 * obeyed up to a cap (so a server cannot park a request for an hour), and otherwise the wait is the
 * client's backoff (0.5 s doubling to 8 s, less up to a quarter of jitter).
 */
import type OpenAI from "openai";
import { ManifoldError } from "../errors/index.js";
import { createBackoff, sleepOn, type Clock } from "../util/index.js";

export type OpenAIModule = typeof import("openai");

export interface RetryOptions {
  readonly maxRetries: number;
  /** The longest wait a server may ask for. */
  readonly maxRetryWaitMs: number;
  readonly clock: Clock;
  readonly signal: AbortSignal | undefined;
  /** Source of randomness in [0, 1), for the jitter. @defaultValue Math.random */
  readonly random?: () => number;
}

/** Whether the client would retry after `error`: the server's word first, then the status; connection failures too. */
export function isRetryable({ default: OpenAI }: OpenAIModule, error: unknown): boolean {
  if (error instanceof OpenAI.APIUserAbortError) return false;
  if (error instanceof OpenAI.APIConnectionError) return true;
  if (!(error instanceof OpenAI.APIError) || error.status === undefined) return false;
  const says = error.headers?.get("x-should-retry");
  if (says === "true") return true;
  if (says === "false") return false;
  return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
}

/** The wait the server asked for in ms (`retry-after-ms`, else `Retry-After` in seconds or as a date); undefined when it names none. */
export function askedWaitMs(headers: Headers | undefined, now: number): number | undefined {
  const millis = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (millis > 0) return millis;
  const after = headers?.get("retry-after");
  if (after !== null && after !== undefined && after !== "") {
    const seconds = Number.parseFloat(after);
    const waitMs = Number.isNaN(seconds) ? Date.parse(after) - now : seconds * 1000;
    if (!Number.isNaN(waitMs)) return Math.max(0, waitMs);
  }
  // A `retry-after-ms` of 0 (with no usable Retry-After) asks for no wait at all.
  return Number.isNaN(millis) ? undefined : Math.max(0, millis);
}

/** The client's own backoff before retry number `retry` (0 for the first). */
export function defaultWaitMs(retry: number, random: () => number = Math.random): number {
  // createBackoff's attempt counts failed attempts (retry + 1); its jitter factor is the client's, 1 less up to a quarter.
  return createBackoff({ baseDelayMs: 500, maxDelayMs: 8_000, random: () => 1 - random() * 0.25 })(retry + 1);
}

/** The wait before retry number `retry` after `error`: what the server asked for, capped, else the backoff. */
export function retryWaitMs(
  error: unknown,
  retry: number,
  { maxRetryWaitMs, clock, random }: Pick<RetryOptions, "maxRetryWaitMs" | "clock" | "random">,
): number {
  const headers = (error as InstanceType<typeof OpenAI.APIError>).headers;
  const asked = askedWaitMs(headers, clock.now());
  return asked === undefined ? defaultWaitMs(retry, random) : Math.min(asked, maxRetryWaitMs);
}

const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

/** Runs `attempt` until it succeeds, fails with something not worth retrying, or the retries are spent. */
export async function withRetries<T>(module: OpenAIModule, attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  for (let retry = 0; ; retry += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (retry >= options.maxRetries || aborted(options.signal) || !isRetryable(module, error)) throw error;
      // The caller is waiting on this retry: its timer holds the process open, as the client's own sleep did.
      await sleepOn(options.clock, retryWaitMs(error, retry, options), options.signal, { hold: true });
      // The caller hung up during the wait: no further attempt.
      if (aborted(options.signal)) throw new ManifoldError("ABORTED", "the language model call was aborted");
    }
  }
}
