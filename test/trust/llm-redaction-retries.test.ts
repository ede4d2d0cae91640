/**
 * Issue 32 L6: redaction that catches key-like text, not only exact copies of registered secrets;
 * upstream answers that never reach a client (errors name the status only); and retries on 429 that
 * do not multiply the load: the provider honours Retry-After with one provider-wide cooldown, after
 * which one attempt probes the endpoint while the others wait for it (or fail without calling).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { REDACTED, redactSecrets, registerSecret } from "../../runtime/context/index.js";
import type { ManifoldError } from "../../runtime/errors/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { createManualClock } from "../support/clock.js";
import { startScriptedLlm } from "../support/scripted-llm.js";
import { eventually, sleep, within } from "../support/wait.js";

const KEY = "sk-test-L6secretVALUE-0123456789";
const MESSAGES = [{ role: "user" as const, content: "hello" }];

const redaction = suite("key-like redaction");

redaction("a registered key's prefix standing alone, sk- keys, bearer tokens and JWTs are redacted; ordinary text is not", () => {
  registerSecret(KEY);
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ2aWN0aW0ifQ.c2lnbmF0dXJlLXZhbHVl";
  const cases: [string, string][] = [
    [`key ${KEY} used`, `key ${REDACTED} used`],
    ["Incorrect API key provided: sk-test***6789.", `Incorrect API key provided: ${REDACTED}***6789.`],
    ["prefix sk-test-L6s... shown", `prefix ${REDACTED}... shown`],
    ["other key sk-proj-AbCd1234efgh", `other key ${REDACTED}`],
    ["authorization: Bearer abc.DEF-123_xyz~", `authorization: Bearer ${REDACTED}`],
    [`token ${jwt} end`, `token ${REDACTED} end`],
  ];
  for (const [text, expected] of cases) assert.is(redactSecrets(text), expected, text);
  for (const plain of [
    "a task-1234 ran, risk-free",
    "trace 4bf92f3577b34da6a3ce929d0e0e4736 span 00f067aa0ba902b7",
    "the skeleton sk- is short",
    "request_id req-123",
  ])
    assert.is(redactSecrets(plain), plain, plain);
});

redaction.run();

const retries = suite("429 storms");

const failure = async (promise: Promise<unknown>): Promise<ManifoldError> => {
  try {
    await promise;
  } catch (error) {
    return error as ManifoldError;
  }
  throw new Error("expected a rejection");
};

retries("an upstream error body never reaches the caller: the message names the status only", async () => {
  const llm = await startScriptedLlm();
  try {
    llm.reply({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY.slice(0, 7)}***6789. Internal host db-7.corp` } } });
    const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: KEY, maxRetries: 0 }, env: {} })!);
    const error = await failure(provider.complete({ phase: "synthesis", messages: MESSAGES }));
    assert.is(error.code, "LLM_ERROR");
    assert.is(error.message, "language model endpoint answered 401");
  } finally {
    await llm.close();
  }
});

retries("100 concurrent requests against an endpoint answering 429: at most 110 upstream calls (100 + one probe's retries)", async () => {
  const clock = createManualClock();
  const llm = await startScriptedLlm(() => ({ status: 429, headers: { "retry-after": "1" }, body: { error: { message: "slow down" } } }));
  try {
    const config = resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: KEY, maxRetries: 2, timeoutMs: 60_000 }, env: {} })!;
    const provider = createLlmProvider(config, { clock });
    let settled = 0;
    const errors: ManifoldError[] = [];
    for (let i = 0; i < 100; i += 1) {
      provider.complete({ phase: "synthesis", messages: MESSAGES }).then(
        () => (settled += 1),
        (error: ManifoldError) => {
          settled += 1;
          errors.push(error);
        },
      );
    }
    await eventually("the first wave's answers", () => llm.requests.length >= 1 && clock.pending() > 0);
    // Time passes in 1 s steps (the Retry-After); the pause between steps only lets the loopback answers come.
    for (let step = 0; step < 40 && settled < 100; step += 1) {
      await clock.advance(1000);
      await sleep(25);
    }
    await eventually("every request's end", () => settled === 100, { describe: () => `${settled} settled, ${llm.requests.length} calls` });
    assert.ok(llm.requests.length <= 110, `${llm.requests.length} upstream calls`);
    assert.is(errors.length, 100);
    for (const error of errors) {
      assert.is(error.code, "LLM_ERROR");
      assert.match(error.message, /429/);
      assert.not.match(error.message, /slow down/);
    }
  } finally {
    await llm.close();
  }
});

retries("while the provider cools down past a call's deadline, a new call fails at once without calling", async () => {
  const clock = createManualClock();
  const llm = await startScriptedLlm(() => ({ status: 429, headers: { "retry-after": "10" } }));
  try {
    const config = resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: KEY, maxRetries: 2, timeoutMs: 3000 }, env: {} })!;
    const provider = createLlmProvider(config, { clock });
    const first = await within("the first call", failure(provider.complete({ phase: "synthesis", messages: MESSAGES })), 10_000);
    assert.match(first.message, /429/);
    assert.is(llm.requests.length, 1, "a 10 s Retry-After does not fit a 3 s deadline: not waited for");
    const second = await failure(provider.complete({ phase: "synthesis", messages: MESSAGES }));
    assert.is(second.code, "LLM_ERROR");
    assert.match(second.message, /429/);
    assert.is(llm.requests.length, 1, "no call while cooling down");
  } finally {
    await llm.close();
  }
});

retries.run();
