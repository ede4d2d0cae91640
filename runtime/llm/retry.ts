/**
 * Retries of a language-model request, on the provider's clock. The `openai` client is built with no
 * retries of its own (its waits are real timers a test cannot drive, and do not watch the caller's
 * signal); the rules are the client's: 408, 409, 429 and 5xx answers and connection failures are
 * retried, `x-should-retry` overrides the status, a server's `retry-after-ms` / `Retry-After` is
 * obeyed up to a cap (so a server cannot park a request for an hour), and otherwise the wait is the
 * client's backoff (0.5 s doubling to 8 s, less up to a quarter of jitter).
 *
 * A call has one deadline, retries included (issue 32 L1): no wait is started that would end too
 * close to it for an attempt to finish, and a 429 cools the whole provider down (cooldown.ts).
 */
import type OpenAI from "openai";
import { ManifoldError } from "../errors/index.js";
import { createBackoff, sleepOn, type Clock, type ClockTimer } from "../util/index.js";
import type { Cooldown, Permit } from "./cooldown.js";

export type OpenAIModule = typeof import("openai");

export interface RetryOptions {
  readonly maxRetries: number;
  /** The longest wait a server may ask for. */
  readonly maxRetryWaitMs: number;
  readonly clock: Clock;
  readonly signal: AbortSignal | undefined;
  /** Source of randomness in [0, 1), for the jitter. @defaultValue Math.random */
  readonly random?: () => number;
  /** Clock time by which the call must end: no wait is started that would leave less than `minAttemptMs`. @defaultValue none */
  readonly deadline?: number;
  /** The least time an attempt is given; see {@link attemptMarginMs}. @defaultValue 0 */
  readonly minAttemptMs?: number;
  /** The provider-wide rate-limit cooldown every attempt goes through. @defaultValue none */
  readonly cooldown?: Cooldown;
}

/** The least time worth starting an attempt with: a quarter of the timeout, at most 1 s. */
export const attemptMarginMs = (timeoutMs: number): number => Math.min(1000, timeoutMs / 4);

/** The call's deadline on a clock. `during` arms it around network work only, so waits between attempts hold no timer of it. */
export interface Deadline {
  /** Clock time the call must end by. */
  readonly at: number;
  /** Fires when the caller's signal does, or when the deadline passes during network work. */
  readonly signal: AbortSignal;
  /** Whether the deadline has passed. */
  passed(): boolean;
  /** Runs `work` with a timer that aborts `signal` at the deadline. */
  during<T>(work: () => Promise<T>): Promise<T>;
}

export function createDeadline(clock: Clock, timeoutMs: number, signal: AbortSignal | undefined): Deadline {
  const at = clock.now() + timeoutMs;
  const controller = new AbortController();
  let fired = false;
  const expire = (): void => {
    fired = true;
    controller.abort();
  };
  return {
    at,
    signal: signal === undefined ? controller.signal : AbortSignal.any([signal, controller.signal]),
    passed: () => fired || clock.now() >= at,
    async during(work) {
      const left = at - clock.now();
      if (left <= 0) expire();
      let timer: ClockTimer | undefined;
      if (left > 0) timer = clock.setTimeout(expire, left);
      try {
        return await work();
      } finally {
        clock.clearTimeout(timer);
      }
    },
  };
}

/** Whether the client would retry after `error`: the server's word first, then the status; connection failures too. */
export function isRetryable({ default: OpenAI }: OpenAIModule, error: unknown): boolean {
  if (error instanceof OpenAI.APIUserAbortError) return false;
  // The runtime's own refusal inside the client (an answer past its size cap, output.ts): asking again gets the same.
  if (error instanceof ManifoldError || (error as { cause?: unknown } | undefined)?.cause instanceof ManifoldError) return false;
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

const abortedError = (): ManifoldError => new ManifoldError("ABORTED", "the language model call was aborted");

/** Said when the provider is cooling down from a 429 and a call cannot wait it out. */
const coolingDown = (): ManifoldError => new ManifoldError("LLM_ERROR", "language model endpoint answered 429: rate limited, and the provider is cooling down");

const isRateLimit = ({ default: OpenAI }: OpenAIModule, error: unknown): boolean => error instanceof OpenAI.APIError && error.status === 429;

/** Runs `attempt` until it succeeds, fails with something not worth retrying, the retries are spent, or the next one would not fit the deadline. */
export async function withRetries<T>(module: OpenAIModule, attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { clock, signal, deadline = Number.POSITIVE_INFINITY, minAttemptMs = 0, cooldown } = options;
  let last: unknown;
  // Set once this request is answered 429: the cooldown's failed-probe count then.
  let since: number | undefined;
  for (let retry = 0; ; retry += 1) {
    let permit: Permit | undefined;
    if (cooldown !== undefined) {
      permit = await cooldown.enter({ signal, deadline, minAttemptMs, since });
      if (aborted(signal)) throw abortedError();
      // Still limited and no time to wait it out: fail without calling, with what the endpoint last said.
      if (permit === undefined) throw last ?? coolingDown();
    }
    try {
      const answer = await attempt();
      if (permit !== undefined) cooldown?.settle(permit, "answered");
      return answer;
    } catch (error) {
      const waitMs = retryWaitMs(error, retry, options);
      if (permit !== undefined && cooldown !== undefined) {
        const limited = !aborted(signal) && isRateLimit(module, error);
        const failedProbes = cooldown.settle(permit, aborted(signal) ? "abandoned" : limited ? { limitedMs: waitMs } : "answered");
        if (limited) since = failedProbes;
      }
      if (retry >= options.maxRetries || aborted(signal) || !isRetryable(module, error)) throw error;
      // A retry that could not finish before the deadline is not started: the caller gets the answer now.
      if (clock.now() + waitMs + minAttemptMs > deadline) throw error;
      // The caller is waiting on this retry: its timer holds the process open, as the client's own sleep did.
      await sleepOn(clock, waitMs, signal, { hold: true });
      // The caller hung up during the wait: no further attempt.
      if (aborted(signal)) throw abortedError();
      last = error;
    }
  }
}
