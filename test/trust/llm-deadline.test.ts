/**
 * Issue 32 L1: the language-model timeout is one deadline per call, retries included, on the
 * provider's clock. A 3 s setting used to give up after 11.3 s (three attempts of 3 s and their
 * backoffs). The real `openai` client against the scripted server; time is a manual clock, and the
 * test counts attempts and says when (on that clock) the call ended, never how long it took.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { ManifoldError } from "../../runtime/errors/index.js";
import { createCooldown } from "../../runtime/llm/cooldown.js";
import { createLlmProvider, resolveLlmConfig, type LlmProvider } from "../../runtime/llm/index.js";
import type { Clock } from "../../runtime/util/index.js";
import { createManualClock, type ManualClock } from "../support/clock.js";
import { startScriptedLlm, type ScriptFunction } from "../support/scripted-llm.js";
import { eventually, within } from "../support/wait.js";

const test = suite("llm call deadline");
const MESSAGES = [{ role: "user" as const, content: "hello" }];

/** The manual clock, counting the retry waits (900 ms, as the script's retry-after-ms asks) set on it. */
function observed(clock: ManualClock): { clock: Clock; waits: () => number } {
  let waits = 0;
  return {
    clock: {
      now: clock.now,
      clearTimeout: clock.clearTimeout,
      setTimeout: (fn, ms) => {
        if (ms === 900) waits += 1;
        return clock.setTimeout(fn, ms);
      },
    },
    waits: () => waits,
  };
}

async function open(script: ScriptFunction, clock: Clock): Promise<{ provider: LlmProvider; requests: () => number; close: () => Promise<void> }> {
  const llm = await startScriptedLlm(script);
  const config = resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "k-deadline-test", timeoutMs: 3000, maxRetries: 10 }, env: {} })!;
  return { provider: createLlmProvider(config, { clock }), requests: () => llm.requests.length, close: () => llm.close() };
}

const settle = <T>(promise: Promise<T>) => {
  const state: { done: boolean; error?: ManifoldError } = { done: false };
  promise.then(
    () => (state.done = true),
    (error: ManifoldError) => Object.assign(state, { done: true, error }),
  );
  return state;
};

test("a failing endpoint: retries while they fit before the deadline, then the last error, before 3 s on the clock", async () => {
  const manual = createManualClock();
  const start = manual.now();
  const { clock, waits } = observed(manual);
  const { provider, requests, close } = await open(() => ({ status: 500, headers: { "retry-after-ms": "900" } }), clock);
  try {
    const call = settle(provider.complete({ phase: "synthesis", messages: MESSAGES }));
    // Each round: the attempt has failed and its retry wait is set (or the call is over); then the wait passes.
    for (let round = 1; round <= 12 && !call.done; round += 1) {
      await eventually(`attempt ${round} and its wait`, () => call.done || (requests() === round && waits() === round));
      if (!call.done) await manual.advance(900);
    }
    await eventually("the end of the call", () => call.done);
    assert.is(requests(), 3, "attempts at 0, 0.9 s and 1.8 s; one at 2.7 s could not finish before the deadline");
    assert.ok(manual.now() - start <= 3000, `the call ended at ${manual.now() - start} ms on the clock`);
    assert.is(call.error?.code, "LLM_ERROR");
  } finally {
    await close();
  }
});

test("an attempt that hangs: the call ends as TIMEOUT when the clock passes the deadline, not an attempt later", async () => {
  const manual = createManualClock();
  const { clock, waits } = observed(manual);
  const { provider, requests, close } = await open(
    (_body, index) => (index === 0 ? { status: 500, headers: { "retry-after-ms": "900" } } : { hang: true }),
    clock,
  );
  try {
    const answering = provider.complete({ phase: "synthesis", messages: MESSAGES });
    const call = settle(answering);
    await eventually("the first attempt's wait", () => waits() === 1);
    await manual.advance(900);
    await eventually("the second attempt", () => requests() === 2);
    await manual.advance(2099);
    assert.not.ok(call.done, "still inside the deadline");
    await manual.advance(1);
    const error = await within(
      "the call at its deadline",
      answering.catch((e: ManifoldError) => e),
      10_000,
    );
    assert.is((error as ManifoldError).code, "TIMEOUT");
    assert.is(requests(), 2, "no attempt after the deadline");
  } finally {
    await close();
  }
});

test("a call waiting for another call's probe after a 429 stops waiting when its own deadline is near", async () => {
  const clock = createManualClock();
  const cooldown = createCooldown(clock);
  const first = (await cooldown.enter({ signal: undefined, minAttemptMs: 0 }))!;
  cooldown.settle(first, { limitedMs: 100 });
  await clock.advance(100);
  const probe = await cooldown.enter({ signal: undefined, minAttemptMs: 0 });
  assert.equal(probe, { probe: true }, "the first call after the cooldown probes, and hangs");
  let waiter: unknown = "waiting";
  void cooldown.enter({ signal: undefined, deadline: clock.now() + 1_000, minAttemptMs: 250 }).then((permit) => (waiter = permit));
  await clock.advance(749);
  assert.is(waiter, "waiting", "it waits for the probe while an attempt still fits");
  await clock.advance(1);
  assert.is(waiter, undefined, "no permit once an attempt no longer fits before its deadline: it fails without calling");
});

test.run();
