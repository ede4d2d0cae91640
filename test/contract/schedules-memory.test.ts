import { randomBytes } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryScheduleStore, createScheduleStore } from "../../runtime/scheduling/index.js";
import { scheduleRecord } from "../support/schedules.js";
import { createStore } from "../../runtime/store/index.js";
import { scheduleStoreCases } from "./schedules.cases.js";

scheduleStoreCases("memory", async (options) => {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `m${randomBytes(4).toString("hex")}` }, log: () => undefined });
  const schedules = createScheduleStore({ store, env: {}, ...options });
  if (schedules.kind !== "memory") throw new Error("expected the memory adapter");
  return { schedules, store };
});

const bounds = suite("schedule store (memory bytes)");

bounds("schedules are held within a byte budget: a create or an update past it is UNAVAILABLE; a delete frees room", async () => {
  const schedules = createMemoryScheduleStore({ maxBytes: 200_000 });
  const due = Date.parse("2030-06-01T00:00:00Z");
  const big = (n: number) => scheduleRecord(due + n, { input: { text: "x".repeat(40_000) } });
  const first = big(1);
  await schedules.create(first);
  await schedules.create(big(2));
  const refuse = async (run: () => Promise<unknown>) => {
    try {
      await run();
      assert.unreachable("over the byte budget");
    } catch (error) {
      assert.is((error as { code: string }).code, "UNAVAILABLE");
      assert.match((error as Error).message, /cancel some first, or configure Redis/);
    }
  };
  await refuse(() => schedules.create(big(3)));
  await refuse(() => schedules.update({ ...first, input: { text: "y".repeat(90_000) } }));
  assert.ok(await schedules.delete(first.schedule_id));
  await schedules.create(big(3));
  assert.is(await schedules.count(), 2);
});

bounds.run();
