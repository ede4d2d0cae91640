/** The gate the executor uses to bound its dispatches: at most `limit` inside, first come first in, an aborted waiter leaves the line. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createGate } from "../../runtime/util/index.js";

test("at most limit holders; the rest enter in arrival order as places free", async () => {
  const gate = createGate(2);
  const order: number[] = [];
  const first = await gate.enter();
  const second = await gate.enter();
  const waiting = [3, 4].map((n) =>
    gate.enter().then((leave) => {
      order.push(n);
      return leave;
    }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(order, [], "both wait while two are inside");
  first();
  first(); // a second call of the same release frees nothing more
  const third = await waiting[0]!;
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(order, [3]);
  second();
  (await waiting[1]!)();
  third();
  assert.equal(order, [3, 4]);
});

test("an aborted waiter rejects with its reason and takes no place", async () => {
  const gate = createGate(1);
  const inside = await gate.enter();
  const controller = new AbortController();
  const aborted = gate.enter(controller.signal);
  const next = gate.enter();
  controller.abort(new Error("stop"));
  await aborted.then(
    () => assert.unreachable("entered"),
    (error: Error) => assert.is(error.message, "stop"),
  );
  inside();
  (await next)();
  await gate.enter(AbortSignal.abort(new Error("late"))).then(
    () => assert.unreachable("entered"),
    (error: Error) => assert.is(error.message, "late"),
  );
});

test.run();
