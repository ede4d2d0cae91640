/**
 * The catalog cache's keep-warm timer: a name in use is read again before its answer expires even when
 * no lookup lands in the read-ahead window (a client whose pacing slipped under load), so its next
 * lookup is answered without waiting for the store; a name no longer looked up is left to expire.
 * The cache's clock is controlled; the sweep's own timer is real, so the suite waits for its reads.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { registration } from "../contract/registry.cases.js";
import { eventually, sleep } from "../support/wait.js";
import { countingCatalog } from "./support.js";

const setup = (keepWarmMs?: number) => countingCatalog({ refreshAheadMs: 40, ...(keepWarmMs === undefined ? {} : { keepWarmMs }) });

test("a name looked up once is read again in its last refreshAheadMs by the timer, and its next lookup past the first answer's freshMs does not wait for the store", async () => {
  const { inner, cached, byName, reads, advance } = setup();
  const first = registration();
  await inner.register(first);
  await cached.byName(first.name);
  const second = registration({ name: first.name });
  await inner.register(second); // another process's registration, straight into the store
  advance(970); // in the last 40 ms, and no lookup comes
  await eventually("the timer's read ahead", () => reads() === 2);
  inner.byName = async () => {
    throw new ManifoldError("INVALID_INPUT", "the store was asked");
  };
  advance(100); // 1,070 ms after the first read: that answer has expired, the one read ahead has not
  assert.equal(
    (await cached.byName(first.name)).map((e) => e.id).sort(),
    [first.id, second.id].sort(),
    "answered from the read ahead, with the store's change",
  );
  inner.byName = byName;
  await cached.close();
});

test("a name not looked up for keepWarmMs is no longer read ahead; keepWarmMs 0 turns the timer off", async () => {
  for (const keepWarmMs of [2_000, 0]) {
    const { inner, cached, reads, advance } = setup(keepWarmMs);
    const c = registration();
    await inner.register(c);
    await cached.byName(c.name);
    let expected = 1;
    // Past keepWarmMs of the only lookup, windows come and go without reads.
    for (let window = 0; window < 4; window += 1) {
      advance(970);
      if (keepWarmMs > 0 && window < 2) {
        expected += 1;
        await eventually(`read ahead ${window + 1}`, () => reads() === expected);
      } else await sleep(60); // a few of the timer's 20 ms periods: a read would have come
      assert.is(reads(), expected, `window ${window + 1} (keepWarmMs ${keepWarmMs})`);
    }
    await cached.close();
  }
});

test.run();
