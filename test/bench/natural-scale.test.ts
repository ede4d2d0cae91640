/**
 * bench:natural-scale's smallest size and a large one, in CI (bytes only, never time): the request
 * runs over the real openai client (the runtime's provider) against the bench's scripted model, with
 * the network registered on a real Redis and the two called components served on loopback. Below the
 * tiered-selection threshold (10 capabilities) the plan is asked over the whole catalog; at 1,000 the
 * model first selects capabilities from a compact index, and the plan prompt carries only those: it
 * fits the prompt budget and is a small fraction of the whole-catalog prompt today's planner sent.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  promptBytesByKind,
  registerNetwork,
  startScaleRun,
  wholeCatalogPromptBytes,
  type RequestFigures,
} from "../../bench/orchestration/natural-scale-run.js";
import { serveScaleTools } from "../../bench/orchestration/natural-scale-tools.js";
import { createRegistry, type Registry } from "../../runtime/discovery/index.js";
import { promptBudgetBytes, readAdaptiveSettings } from "../../runtime/orchestration/natural/adaptive.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { startRedisServer } from "../support/redis.js";

const BUDGET = promptBudgetBytes(readAdaptiveSettings({}));
const redis = await startRedisServer();
const tools = await serveScaleTools();
const stores: Store[] = [];

/** A registry of its own (its own namespace) holding the network of `size` capabilities. */
async function network(size: number): Promise<Registry> {
  const store = createStore({ env: { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: `scale-${size}` }, log: () => undefined });
  stores.push(store);
  const registry = createRegistry({ store, env: {} });
  await registerNetwork(registry, size, tools.ports);
  return registry;
}

async function once(registry: Registry): Promise<RequestFigures> {
  const run = await startScaleRun(registry);
  try {
    return await run.request();
  } finally {
    await run.close();
  }
}

const figures = new Map<number, { request: RequestFigures; whole: number }>();
async function measured(size: number): Promise<{ request: RequestFigures; whole: number }> {
  let known = figures.get(size);
  if (known === undefined) {
    const registry = await network(size);
    figures.set(size, (known = { request: await once(registry), whole: await wholeCatalogPromptBytes(registry) }));
  }
  return known;
}

test.after(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await tools.close();
  await redis.close();
});

test("10 capabilities (below the threshold): one plan over the whole catalog, then the synthesis", async () => {
  const { request, whole } = await measured(10);
  assert.equal(
    request.calls.map((c) => c.kind),
    ["routing_plan", "synthesis"],
  );
  const plan = promptBytesByKind(request.calls)["routing_plan"]!;
  assert.ok(plan <= BUDGET, `${plan} bytes`);
  assert.equal(plan, whole, "the plan prompt is the whole-catalog prompt");
});

test("1,000 capabilities: capability_selection first, then a plan prompt within the budget and far below the whole catalog's", async () => {
  const { request, whole } = await measured(1_000);
  assert.equal(
    request.calls.map((c) => c.kind),
    ["capability_selection", "routing_plan", "synthesis"],
  );
  const bytes = promptBytesByKind(request.calls);
  for (const [kind, size] of Object.entries(bytes)) assert.ok(size <= BUDGET, `${kind}: ${size} bytes over the ${BUDGET}-byte budget`);
  assert.ok(whole > BUDGET, `the whole-catalog prompt (${whole} bytes) would not even fit`);
  assert.ok(bytes["routing_plan"]! * 20 <= whole, `plan prompt ${bytes["routing_plan"]} bytes against ${whole} for the whole catalog`);
  assert.ok(bytes["capability_selection"]! * 2 <= whole, `selection prompt ${bytes["capability_selection"]} bytes against ${whole} for the whole catalog`);
  // The plan carries the two selected capabilities: no more than the 10-capability network's whole catalog.
  const small = promptBytesByKind((await measured(10)).request.calls)["routing_plan"]!;
  assert.ok(bytes["routing_plan"]! <= small, `plan prompt at 1,000: ${bytes["routing_plan"]} bytes, at 10: ${small}`);
});

test.run();
