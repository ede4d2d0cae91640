import { randomBytes } from "node:crypto";
import { createEpisodeStore } from "../../runtime/memory/episodic/index.js";
import { createStore } from "../../runtime/store/index.js";
import { DOMAIN, episodeStoreCases } from "./episodes.cases.js";

episodeStoreCases("memory", async ({ maxEpisodes, clock }) => {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `m${randomBytes(4).toString("hex")}` }, log: () => undefined });
  const options = { store, env: {}, domain: DOMAIN, ...(maxEpisodes === undefined ? {} : { maxEpisodes }), ...(clock && { clock }) };
  const episodes = createEpisodeStore(options);
  if (episodes.kind !== "memory") throw new Error("expected the memory adapter");
  // Every store of one namespace, domain and count is the same one, as replicas share a Redis.
  return { episodes, replica: async () => createEpisodeStore(options) };
});
