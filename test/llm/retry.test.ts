/** The language model's retry rules, on their own: which failures are retried, and how long each wait is. */
import OpenAI, * as openai from "openai";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { askedWaitMs, defaultWaitMs, isRetryable, retryWaitMs, withRetries } from "../../runtime/llm/retry.js";
import { createManualClock } from "../support/clock.js";
import { eventually, within } from "../support/wait.js";

const test = suite("llm retry");
const NOW = Date.UTC(2026, 0, 1);

const apiError = (status: number, headers: Record<string, string> = {}) => OpenAI.APIError.generate(status, undefined, "failed", new Headers(headers));

test("retried: 408, 409, 429, 5xx and connection failures; not: other statuses, an abort, a non-client error", () => {
  for (const status of [408, 409, 429, 500, 503]) assert.ok(isRetryable(openai, apiError(status)), String(status));
  for (const status of [400, 401, 404, 422]) assert.not.ok(isRetryable(openai, apiError(status)), String(status));
  assert.ok(isRetryable(openai, new OpenAI.APIConnectionError({ message: "refused" })));
  assert.ok(isRetryable(openai, new OpenAI.APIConnectionTimeoutError()));
  assert.not.ok(isRetryable(openai, new OpenAI.APIUserAbortError()));
  assert.not.ok(isRetryable(openai, new Error("boom")));
});

test("x-should-retry overrides the status either way", () => {
  assert.ok(isRetryable(openai, apiError(400, { "x-should-retry": "true" })));
  assert.not.ok(isRetryable(openai, apiError(503, { "x-should-retry": "false" })));
});

test("the asked wait: retry-after-ms first, then Retry-After in seconds or as a date; none named is undefined", () => {
  assert.is(askedWaitMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), NOW), 250);
  assert.is(askedWaitMs(new Headers({ "retry-after": "1.5" }), NOW), 1500);
  assert.is(askedWaitMs(new Headers({ "retry-after": new Date(NOW + 4000).toUTCString() }), NOW), 4000);
  assert.is(askedWaitMs(new Headers({ "retry-after": new Date(NOW - 4000).toUTCString() }), NOW), 0, "a date already past is no wait");
  assert.is(askedWaitMs(new Headers({ "retry-after-ms": "0" }), NOW), 0);
  assert.is(askedWaitMs(new Headers({ "retry-after": "soon" }), NOW), undefined);
  assert.is(askedWaitMs(new Headers(), NOW), undefined);
  assert.is(askedWaitMs(undefined, NOW), undefined);
});

test("the default backoff doubles from 0.5 s to at most 8 s, less up to a quarter of jitter", () => {
  assert.equal(
    [0, 1, 2, 3, 4, 5].map((retry) => defaultWaitMs(retry, () => 0)),
    [500, 1000, 2000, 4000, 8000, 8000],
  );
  assert.is(
    defaultWaitMs(0, () => 0.999_999),
    500 * (1 - 0.999_999 * 0.25),
  );
});

test("the wait before a retry: the asked one capped, else the backoff", () => {
  const clock = createManualClock(NOW);
  const options = { maxRetryWaitMs: 2000, clock, random: () => 0 };
  assert.is(retryWaitMs(apiError(429, { "retry-after": "1" }), 0, options), 1000);
  assert.is(retryWaitMs(apiError(429, { "retry-after": "3600" }), 0, options), 2000);
  assert.is(retryWaitMs(apiError(429, { "retry-after-ms": "3600000" }), 0, options), 2000);
  assert.is(retryWaitMs(apiError(503), 1, options), 1000);
  assert.is(retryWaitMs(new OpenAI.APIConnectionError({ message: "refused" }), 0, options), 500);
});

test("withRetries: retries on the clock until an answer, gives up after maxRetries with the last error", async () => {
  const clock = createManualClock(NOW);
  let attempts = 0;
  const answering = withRetries(
    openai,
    async () => {
      attempts += 1;
      // The first two attempts fail with a server-set pause; the third answers.
      const failing = attempts <= 2;
      if (failing) throw apiError(503, { "retry-after-ms": "100" });
      return "ok";
    },
    { maxRetries: 2, maxRetryWaitMs: 1000, clock, signal: undefined },
  );
  await eventually("the first wait", () => clock.pending() === 1);
  await clock.advance(99);
  assert.is(attempts, 1);
  await clock.advance(1);
  assert.is(attempts, 2);
  await eventually("the second wait", () => clock.pending() === 1);
  await clock.advance(100);
  assert.is(await within("the answer", answering), "ok");

  let failed = 0;
  const failing = withRetries(
    openai,
    async () => {
      failed += 1;
      throw apiError(500, { "retry-after-ms": "10" });
    },
    { maxRetries: 1, maxRetryWaitMs: 1000, clock, signal: undefined },
  ).catch((error: unknown) => error);
  await eventually("the wait", () => clock.pending() === 1);
  await clock.advance(10);
  const error = (await within("the failure", failing)) as InstanceType<typeof OpenAI.APIError>;
  assert.is(error.status, 500);
  assert.is(failed, 2, "one try and one retry");
});

test("withRetries: a failure not worth retrying is thrown at once", async () => {
  let attempts = 0;
  const error = await withRetries(
    openai,
    async () => {
      attempts += 1;
      throw apiError(400);
    },
    { maxRetries: 3, maxRetryWaitMs: 1000, clock: createManualClock(NOW), signal: undefined },
  ).catch((e: unknown) => e);
  assert.is((error as InstanceType<typeof OpenAI.APIError>).status, 400);
  assert.is(attempts, 1);
});

test.run();
