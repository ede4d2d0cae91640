/**
 * The provider's `embed`: the real `openai` client against the scripted server's `/v1/embeddings`.
 * One vector per input in order, the configured model (MANIFOLD_EMBEDDING_MODEL, else
 * text-embedding-3-small), usage, retries like `complete`, failures as ManifoldError codes that never
 * quote the endpoint's answer or the key, and bounded inputs.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, resolveLlmConfig, type LlmOptions, type LlmProvider } from "../../runtime/llm/index.js";
import { rejection } from "../support/errors.js";
import { scriptedEmbedding } from "../support/scripted-embeddings.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";

const KEY = "sk-test-EMBED-secret-4321";

interface Context {
  llm: ScriptedLlm;
  provider: (options?: LlmOptions, env?: Record<string, string>) => LlmProvider;
}
const test = suite<Context>("llm embed", {} as Context);

test.before.each(async (context) => {
  context.llm = await startScriptedLlm();
  context.provider = (options = {}, env = {}) =>
    createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: KEY, model: "chat-model", maxRetries: 0, ...options }, env })!);
});
test.after.each(async ({ llm }) => {
  await llm.close();
});

test("one vector per input, in order, with usage and the default embedding model", async ({ llm, provider }) => {
  const inputs = ["Prefers window seats", "Allergic to peanuts", "packing light"];
  const result = await provider().embed!({ input: inputs });
  assert.equal(
    result.vectors,
    inputs.map((text) => scriptedEmbedding(text)),
  );
  assert.is(result.model, "text-embedding-3-small");
  assert.equal(result.usage, { prompt_tokens: 8, completion_tokens: 0, total_tokens: 8 });
  assert.ok(result.duration_ms >= 0);
  assert.is(llm.embeddingRequests.length, 1);
  assert.is(llm.requests.length, 0, "no chat completion was asked for");
  const sent = llm.embeddingRequests[0]!;
  assert.equal(sent.body.input, inputs);
  assert.is(sent.body.model, "text-embedding-3-small");
  assert.is(sent.body.encoding_format, "float", "floats asked for by name: not every compatible server speaks base64");
  assert.is(sent.headers["authorization"], `Bearer ${KEY}`);
});

test("the embedding model comes from the option, then MANIFOLD_EMBEDDING_MODEL; a request may name its own", async ({ llm, provider }) => {
  await provider({}, { MANIFOLD_EMBEDDING_MODEL: "env-embedder" }).embed!({ input: ["a word"] });
  await provider({ embeddingModel: "option-embedder" }, { MANIFOLD_EMBEDDING_MODEL: "env-embedder" }).embed!({ input: ["a word"] });
  await provider().embed!({ input: ["a word"], model: "asked-for" });
  assert.equal(
    llm.embeddingRequests.map((r) => r.body.model),
    ["env-embedder", "option-embedder", "asked-for"],
  );
});

test("a 5xx is retried like a completion; a failure is LLM_ERROR with the status, quoting neither the answer nor the key", async ({ llm, provider }) => {
  llm.failEmbeddings({ status: 503, headers: { "retry-after-ms": "1" } });
  const retried = await provider({ maxRetries: 1 }).embed!({ input: ["retried"] });
  assert.equal(retried.vectors, [scriptedEmbedding("retried")]);
  assert.is(llm.embeddingRequests.length, 2);

  llm.failEmbeddings({ status: 401, body: { error: { message: `bad key ${KEY} inside` } } });
  const error = await rejection(provider().embed!({ input: ["refused"] }));
  assert.is(error.code, "LLM_ERROR");
  assert.match(error.message, /answered 401/);
  assert.not.match(error.message, /inside|sk-test/);
});

test("an answer without one usable vector per input is LLM_ERROR", async ({ llm, provider }) => {
  llm.failEmbeddings(
    { status: 200, body: { object: "list", data: [], model: "m", usage: { prompt_tokens: 1, total_tokens: 1 } } },
    {
      status: 200,
      body: {
        object: "list",
        data: [
          { index: 0, embedding: [1, 0] },
          { index: 1, embedding: [1] },
        ],
        model: "m",
      },
    },
    { status: 200, body: { object: "list", data: [{ index: 0, embedding: ["x"] }], model: "m" } },
  );
  for (const input of [["one"], ["one", "two"], ["one"]]) {
    const error = await rejection(provider().embed!({ input }));
    assert.is(error.code, "LLM_ERROR");
    assert.match(error.message, /unusable/);
  }
});

test("an aborted call is ABORTED; a hanging endpoint past the timeout is TIMEOUT", async ({ llm, provider }) => {
  llm.failEmbeddings({ hang: true });
  const controller = new AbortController();
  const pending = provider().embed!({ input: ["slow"], signal: controller.signal });
  controller.abort();
  assert.is((await rejection(pending)).code, "ABORTED");
  llm.failEmbeddings({ hang: true });
  assert.is((await rejection(provider({ timeoutMs: 50 }).embed!({ input: ["slow"] }))).code, "TIMEOUT");
});

test("inputs are bounded: 1 to 64 per call, each a non-empty string of at most 8 KiB", async ({ llm, provider }) => {
  const embed = provider().embed!;
  const refused = async (input: string[]): Promise<string> => {
    try {
      await embed({ input });
    } catch (error) {
      assert.instance(error, RangeError);
      return (error as Error).message;
    }
    throw new Error("expected a RangeError");
  };
  assert.match(await refused([]), /1 to 64/);
  assert.match(await refused(Array.from({ length: 65 }, (_, i) => `text ${i}`)), /1 to 64/);
  assert.match(await refused([""]), /non-empty/);
  assert.match(await refused(["é".repeat(4097)]), /8192 bytes/);
  assert.is(llm.embeddingRequests.length, 0, "nothing past the bounds was sent");
  assert.is((await embed({ input: Array.from({ length: 64 }, (_, i) => `text ${i}`) })).vectors.length, 64);
});

test.run();
