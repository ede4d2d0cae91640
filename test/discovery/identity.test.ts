/**
 * A keyed registry's lookups hand out the same objects while nothing changed, as an unkeyed one
 * does: what readers build once from a record (the dashboard's JSON per record, the planner's
 * catalog) stays valid across lookups, and is rebuilt only for a record that changed.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryRegistry, withRegistryKey } from "../../runtime/discovery/index.js";
import { registration } from "../contract/registry.cases.js";

const KEY = "identity-test-key-".padEnd(64, "0");

test("a keyed lookup returns the same verified objects while the records are unchanged; a heartbeat's record is a new one", async () => {
  let now = 1_000_000;
  const registry = withRegistryKey(createMemoryRegistry({ now: () => now }), { key: KEY, now: () => now, log: () => undefined });
  const [a, b] = [registration(), registration()];
  await registry.register(a);
  await registry.register(b);
  const first = await registry.byName(a.name);
  const again = await registry.byName(a.name);
  assert.is(first.length, 2);
  assert.ok(
    first.every((entry, i) => entry === again[i]),
    "the same objects",
  );
  assert.ok(Object.isFrozen(first[0]), "frozen, as unkeyed entries are: one caller cannot change what the next one gets");
  now += 1_000;
  await registry.register(b); // b's heartbeat: re-signed, a new record
  const after = await registry.byName(a.name);
  const byId = (list: typeof after, id: string) => list.find((e) => e.id === id);
  assert.ok(byId(after, a.id) === byId(first, a.id), "a's record is unchanged: the same object");
  assert.ok(byId(after, b.id) !== byId(first, b.id), "b beat: a new object");
  assert.is(byId(after, b.id)!.verification, "verified");
});

test.run();
