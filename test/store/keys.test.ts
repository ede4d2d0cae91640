import { test } from "uvu";
import * as assert from "uvu/assert";
import { checkKeyName, createKeyBuilder, resolveNamespace } from "../../runtime/store/index.js";

/** Redis Cluster's rule: the hash tag is what lies between the first `{` and the next `}`. */
function hashTag(key: string): string {
  const open = key.indexOf("{");
  const close = key.indexOf("}", open + 1);
  return open === -1 || close <= open + 1 ? key : key.slice(open + 1, close);
}

test("the three key shapes", () => {
  const keys = createKeyBuilder("default");
  assert.is(keys.key("tasks", "t-1"), "manifold:v1:default:tasks:t-1");
  assert.is(keys.shared("registry", "index", "all"), "manifold:v1:{default}:registry:index:all");
  assert.is(keys.tagged("t-1", "task", "events"), "manifold:v1:default:{t-1}:task:events");
});

test("shared keys of a namespace share one slot; other namespaces do not", () => {
  const a = createKeyBuilder("default");
  const b = createKeyBuilder("staging");
  assert.is(hashTag(a.shared("registry", "component", "x-1")), hashTag(a.shared("registry", "index", "capability", "geocode")));
  assert.is.not(hashTag(a.shared("registry", "index", "all")), hashTag(b.shared("registry", "index", "all")));
});

test("a part with a brace, whitespace, or nothing is refused (it would move the key's slot)", () => {
  const keys = createKeyBuilder("default");
  for (const part of ["a{b", "a}b", "a b", ""]) assert.throws(() => keys.key("registry", part), /invalid key part/);
  assert.throws(() => createKeyBuilder("{x}"), /invalid key part/);
});

test("the namespace: the option, else MANIFOLD_REDIS_NAMESPACE (empty is unset), else default", () => {
  assert.is(resolveNamespace("mine", { MANIFOLD_REDIS_NAMESPACE: "env" }), "mine");
  assert.is(resolveNamespace(undefined, { MANIFOLD_REDIS_NAMESPACE: "env" }), "env");
  assert.is(resolveNamespace(undefined, { MANIFOLD_REDIS_NAMESPACE: "" }), "default");
  assert.is(resolveNamespace(undefined, {}), "default");
});

test("one naming rule for namespaces and queue names; a refusal names the setting and the value", () => {
  for (const name of ["a{b}", "a:b", "a b", "", "x".repeat(65)]) {
    assert.throws(
      () => checkKeyName("task queue name", name),
      (e: Error) => e instanceof RangeError && e.message.startsWith("task queue name must be") && e.message.includes(JSON.stringify(name)),
    );
  }
  assert.is(checkKeyName("n", "travel-agent_1.v2"), "travel-agent_1.v2");
  assert.throws(() => resolveNamespace("a:b", {}, "task backend namespace"), /^task backend namespace must be/);
  assert.throws(() => resolveNamespace(undefined, { MANIFOLD_REDIS_NAMESPACE: "a:b" }), /MANIFOLD_REDIS_NAMESPACE must be/);
});

test.run();
