import { createSkillStore } from "../../runtime/skills/store/index.js";
import { startRedisCluster } from "../support/redis.js";
import { freshRedisStores } from "./fresh-stores.js";
import { skillStoreCases } from "./skills.cases.js";

const cluster = await startRedisCluster();
const stores = freshRedisStores(() => ({ MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv }));

// Each skill's keys share its hash tag (its scripts touch one slot); the index is under the namespace's tag.
skillStoreCases(
  "redis cluster, 3 masters",
  async () => {
    const store = stores.store();
    if (!store.cluster) throw new Error("expected a cluster connection");
    const skills = createSkillStore({ store, env: stores.envOf(store) });
    if (skills.kind !== "redis") throw new Error("expected the redis adapter");
    return skills;
  },
  async () => {
    await stores.closeAll();
    await cluster.close();
  },
);
