import { createEpisodeStore } from "../../runtime/memory/episodic/index.js";
import { startRedisCluster } from "../support/redis.js";
import { DOMAIN, episodeStoreCases } from "./episodes.cases.js";
import { freshRedisStores } from "./fresh-stores.js";

const cluster = await startRedisCluster();
const stores = freshRedisStores(() => ({ MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv }));

// Every key of a domain carries the {episodes:<domain>} hash tag, so each script's keys (and the
// record keys a script derives from a prefix) share one slot; replicas are separate cluster connections.
episodeStoreCases(
  "redis cluster, 3 masters",
  async ({ maxEpisodes, clock }) => {
    const store = stores.store();
    if (!store.cluster) throw new Error("expected a cluster connection");
    const options = { env: {}, domain: DOMAIN, ...(maxEpisodes === undefined ? {} : { maxEpisodes }), ...(clock && { clock }) };
    const episodes = createEpisodeStore({ store, ...options });
    if (episodes.kind !== "redis") throw new Error("expected the redis adapter");
    return {
      episodes,
      replica: async () => createEpisodeStore({ store: stores.replica(store), ...options }),
    };
  },
  async () => {
    await stores.closeAll();
    await cluster.close();
  },
);
