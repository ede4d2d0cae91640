import { createFactStore } from "../../runtime/memory/index.js";
import { createStore } from "../../runtime/store/index.js";
import { randomBytes } from "node:crypto";
import { userFactsCases } from "./user-facts.cases.js";

// In memory the replica is the same store: concurrency is calls interleaving in one process.
userFactsCases("memory", async ({ maxFacts, ttlMs }) => {
  let now = Date.parse("2030-01-01T00:00:00.000Z");
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `m${randomBytes(4).toString("hex")}` }, log: () => undefined });
  const facts = createFactStore({ store, env: {}, now: () => now, ...(maxFacts !== undefined && { maxFacts }), ...(ttlMs !== undefined && { ttlMs }) });
  if (facts.kind !== "memory") throw new Error("expected the memory adapter");
  return {
    facts,
    replica: facts,
    advance: async (ms) => {
      now += ms;
    },
  };
});
