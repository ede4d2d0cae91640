import { test } from "uvu";
import * as assert from "uvu/assert";
import { createKeyBuilder } from "../../runtime/store/index.js";

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

test.run();
