/**
 * Issue 32 L2 at the provider: the text a call keeps is capped per request, streamed or not (a stream
 * is left once the text is full, and no piece past the cap reaches onChunk), and no answer body is
 * read past its byte cap. The real `openai` client against the scripted server.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { ManifoldError } from "../../runtime/errors/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { startScriptedLlm } from "../support/scripted-llm.js";

const test = suite("llm output caps");
const MESSAGES = [{ role: "user" as const, content: "hello" }];

test("a long answer is cut to maxOutputBytes and marked truncated; streamed pieces stop at the cap", async () => {
  const llm = await startScriptedLlm();
  try {
    const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "k-caps", maxRetries: 0 }, env: {} })!);
    const long = "é".repeat(500_000); // 1 MB of two-byte characters
    llm.reply({ text: long });
    const whole = await provider.complete({ phase: "synthesis", messages: MESSAGES, maxOutputBytes: 1001 });
    assert.is(Buffer.byteLength(whole.text), 1000, "cut on a character boundary");
    assert.equal([whole.truncated, whole.finish_reason], [true, "length"]);

    llm.reply({ text: long, chunks: 200 });
    const pieces: string[] = [];
    const streamed = await provider.complete({ phase: "synthesis_streaming", messages: MESSAGES, maxOutputBytes: 10_000, onChunk: (p) => pieces.push(p) });
    assert.is(Buffer.byteLength(pieces.join("")), 10_000);
    assert.is(streamed.text, pieces.join(""));
    assert.is(streamed.truncated, true);
  } finally {
    await llm.close();
  }
});

test("an answer body past 4 MiB is not read: LLM_ERROR, not retried", async () => {
  const llm = await startScriptedLlm(() => ({ text: "x".repeat(5 * 1024 * 1024) }));
  try {
    const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "k-caps", maxRetries: 2 }, env: {} })!);
    const error = await provider.complete({ phase: "synthesis", messages: MESSAGES }).then(
      () => undefined,
      (e: ManifoldError) => e,
    );
    assert.is(error?.code, "LLM_ERROR");
    assert.match(error!.message, /larger than 4194304 bytes/);
    assert.is(llm.requests.length, 1, "asking again would get the same answer");
  } finally {
    await llm.close();
  }
});

test.run();
