/**
 * loadOnce, which code loaded on first use relies on (a feature's running part, natural mode's model
 * parts): callers during a load share it, a success is kept, a failure is not, so the next call retries.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadOnce } from "../../runtime/util/index.js";

test("callers during a load share it, and its value is kept", async () => {
  let calls = 0;
  const parts = loadOnce(async () => ({ n: ++calls }));
  assert.is(parts.current(), undefined);
  assert.is(parts.pending(), undefined);
  const [a, b] = await Promise.all([parts.get(), parts.get()]);
  assert.is(a, b);
  assert.is(calls, 1);
  assert.is(parts.current(), a);
  assert.is(await parts.get(), a);
  assert.is(calls, 1);
});

test("a failed load fails its callers and is not kept: the next call loads again", async () => {
  let calls = 0;
  const parts = loadOnce(async () => {
    calls += 1;
    if (calls === 1) throw new Error("first load fails");
    return "loaded";
  });
  const [a, b] = await Promise.allSettled([parts.get(), parts.get()]);
  assert.is(a.status, "rejected");
  assert.is(b.status, "rejected");
  assert.is(calls, 1);
  assert.is(parts.pending(), undefined);
  assert.is(parts.current(), undefined);
  assert.is(await parts.get(), "loaded");
  assert.is(calls, 2);
  assert.is(parts.current(), "loaded");
});

test.run();
