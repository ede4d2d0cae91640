/** Choosing and configuring the LLM debug store from the environment (the stores themselves: test/contract/llm-debug-store*). */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createLlmDebugStore, llmDebugEnabled } from "../../runtime/llm/index.js";
import { createStore } from "../../runtime/store/index.js";

test("MANIFOLD_LLM_DEBUG_ENABLED: true (or 1, any case) is on; unset, empty, false or 0 is off; anything else a RangeError", () => {
  for (const on of ["true", "1", "TRUE", " true"]) assert.is(llmDebugEnabled({ MANIFOLD_LLM_DEBUG_ENABLED: on }), true);
  for (const off of [{}, { MANIFOLD_LLM_DEBUG_ENABLED: "" }, { MANIFOLD_LLM_DEBUG_ENABLED: "false" }, { MANIFOLD_LLM_DEBUG_ENABLED: "0" }]) {
    assert.is(llmDebugEnabled(off), false);
  }
  for (const bad of ["yes", "on", "2"]) {
    assert.throws(
      () => llmDebugEnabled({ MANIFOLD_LLM_DEBUG_ENABLED: bad }),
      (e: unknown) => e instanceof RangeError && /MANIFOLD_LLM_DEBUG_ENABLED/.test(e.message),
    );
  }
});

test("an invalid TTL variable is a RangeError naming it", () => {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: "llm-debug-config" }, log: () => undefined });
  for (const name of ["MANIFOLD_LLM_DEBUG_TTL", "MANIFOLD_LLM_DEBUG_ERROR_TTL"]) {
    for (const bad of ["72", "1.5h", "-1h", "0m", "forever"]) {
      assert.throws(
        () => createLlmDebugStore({ store, env: { [name]: bad } }),
        (e: unknown) => e instanceof RangeError && e.message.startsWith(name),
        `${name}=${bad}`,
      );
    }
  }
  // A valid value, or an explicit option, is accepted.
  assert.is(createLlmDebugStore({ store, env: { MANIFOLD_LLM_DEBUG_TTL: "30m", MANIFOLD_LLM_DEBUG_ERROR_TTL: "" } }).kind, "memory");
  assert.is(createLlmDebugStore({ store, env: { MANIFOLD_LLM_DEBUG_TTL: "nope" }, ttlMs: 1000 }).kind, "memory");
  assert.throws(() => createLlmDebugStore({ store, env: {}, maxInteractions: 0 }), RangeError);
});

test("on a memory store, every caller with the same settings shares one debug store (one process, one record set)", async () => {
  const env = { MANIFOLD_REDIS_NAMESPACE: "llm-debug-shared" };
  const a = createLlmDebugStore({ store: createStore({ env, log: () => undefined }), env: {} });
  const b = createLlmDebugStore({ store: createStore({ env, log: () => undefined }), env: {} });
  assert.is(a, b);
  const other = createLlmDebugStore({ store: createStore({ env: { MANIFOLD_REDIS_NAMESPACE: "llm-debug-other" }, log: () => undefined }), env: {} });
  assert.is.not(a, other);
  await a.record({
    request_id: "shared-1",
    source_component: "planner",
    interaction: {
      type: "chat",
      category: "llm",
      started_at: new Date().toISOString(),
      duration_ms: 1,
      prompt_tokens: 1,
      completion_tokens: 1,
      total_tokens: 2,
      model: "m",
      attempt: 1,
      success: true,
      prompt: "p",
      response: "r",
    },
  });
  assert.is((await b.get("shared-1"))?.interactions.length, 1);
  assert.is(await other.get("shared-1"), undefined);
});

test.run();
