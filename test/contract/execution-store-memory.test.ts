import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryExecutionStore } from "../../runtime/orchestration/index.js";
import { executionRecord, executionStoreCases } from "./execution-store.cases.js";

executionStoreCases("memory", async (options) => createMemoryExecutionStore(options));

const bounds = suite("execution store (memory bounds)");

bounds("past its count or byte budget the oldest records go first; the one just saved always stays", async () => {
  const store = createMemoryExecutionStore({ maxRecords: 3, maxBytes: 1_000_000 });
  const saved = Array.from({ length: 4 }, () => executionRecord());
  for (const record of saved) await store.save(record);
  assert.is(await store.get(saved[0]!.plan_id), undefined);
  assert.ok((await store.get(saved[3]!.plan_id)) !== undefined);

  const small = createMemoryExecutionStore({ maxRecords: 1_000, maxBytes: 60_000 });
  const big = (text: string) => {
    const record = executionRecord();
    return { ...record, plan: { ...record.plan!, original_request: text } };
  };
  const first = big("a".repeat(20_000));
  const second = big("b".repeat(20_000));
  await small.save(first);
  await small.save(second);
  assert.is(await small.get(first.plan_id), undefined, "two 40 KB records do not fit 60 KB: the older went");
  assert.ok((await small.get(second.plan_id)) !== undefined);
  const huge = big("c".repeat(100_000));
  await small.save(huge);
  assert.ok((await small.get(huge.plan_id)) !== undefined, "a record over the whole budget is still kept, alone");
  assert.is((await small.list()).length, 1);
});

bounds.run();
