/**
 * bench:memory's harness, small, in CI (bytes and content only, never time): 1,000 facts for one user
 * and 2,000 episodes in a domain, on the embedded store and on a real Redis. The same natural request
 * runs with the memory context sources and without them, over the real openai client against the
 * bench's scripted model: with memory the planning prompt carries what recall found about the request
 * (the user's home city and unit, the domain's digest and earlier runs about Lyon), and what memory
 * adds stays within the sources' budgets (each one's budget and its section's framing).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startMemoryBench, type MemoryBench } from "../../bench/memory/harness.js";
import { serveScaleTools } from "../../bench/orchestration/natural-scale-tools.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { startRedisServer } from "../support/redis.js";

const redis = await startRedisServer();
const tools = await serveScaleTools();
const stores: Store[] = [];

async function bench(backend: "embedded" | "redis"): Promise<MemoryBench> {
  // A namespace per bench: nothing one leaves (the digest) is seen by the next.
  const env = backend === "redis" ? { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: `bench-memory-${stores.length}` } : {};
  const store = createStore({ env, log: () => undefined });
  stores.push(store);
  return startMemoryBench({ store, facts: 1_000, episodes: 2_000 }, tools);
}

test.after(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await tools.close();
  await redis.close();
});

for (const backend of ["embedded", "redis"] as const) {
  test(`${backend}: recall finds what the request is about, each section within its source's budget`, async () => {
    const memory = await bench(backend);
    try {
      const [user, episodic] = await Promise.all(memory.sources.map((source) => memory.gather(source)));
      const userText = user!.gathered?.section?.text ?? "";
      assert.match(userText, /home_city: Lyon/);
      assert.match(userText, /temperature_unit: Celsius/);
      assert.ok(Buffer.byteLength(userText) <= memory.sources[0]!.budgetBytes!, `${Buffer.byteLength(userText)} bytes`);
      const episodicText = episodic!.gathered?.section?.text ?? "";
      assert.match(episodicText, /Most requests ask for a city's forecast/, "the domain's digest");
      assert.match(episodicText, /Forecast for lyon/, "an earlier run about the request's city");
      assert.ok(Buffer.byteLength(episodicText) <= memory.sources[1]!.budgetBytes!, `${Buffer.byteLength(episodicText)} bytes`);
    } finally {
      await memory.close();
    }
  });

  test(`${backend}: the same request with memory and without: the planning prompt grows by at most the sources' budgets`, async () => {
    const memory = await bench(backend);
    try {
      const without = await memory.request(false);
      const withMemory = await memory.request(true);
      const added = withMemory.bytes["routing_plan"]! - without.bytes["routing_plan"]!;
      const budget = await memory.budgetBytes();
      assert.ok(added > 0, "memory added to the planning prompt");
      assert.ok(added <= budget, `+${added} bytes against ${budget}`);
      // The synthesis sees user memory (synthesis: true), not the episodes.
      const synthesisAdded = withMemory.bytes["synthesis"]! - without.bytes["synthesis"]!;
      assert.ok(synthesisAdded > 0 && synthesisAdded < added, `synthesis +${synthesisAdded} bytes, planning +${added}`);
    } finally {
      await memory.close();
    }
  });
}

test.run();
