import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createEpisodeStore } from "../../runtime/memory/episodic/index.js";
import { startRedisServer } from "../support/redis.js";
import { DOMAIN, episodeAt, episodeStoreCases } from "./episodes.cases.js";
import { freshRedisStores } from "./fresh-stores.js";

const server = await startRedisServer();
const stores = freshRedisStores(() => ({ REDIS_URL: server.url }));

const layout = suite("episode store (redis key layout)");

layout("every key of a domain shares its {episodes:<domain>} hash tag; records and indexes expire a day after the retention", async () => {
  const store = stores.store();
  const retentionMs = 3_600_000;
  const episodes = createEpisodeStore({ store, env: {}, domain: DOMAIN, maxEpisodes: 10, retentionMs });
  const episode = episodeAt(1, { entities: ["destination:lisbon", "traveller:bob"] });
  await episodes.append(episode);
  const prefix = `manifold:v1:${store.namespace}:{episodes:${DOMAIN}}`;
  const keys = await store.client.keys(`manifold:v1:${store.namespace}:*`);
  assert.is(keys.length, 5, keys.join(" "));
  assert.ok(
    keys.every((k) => k.startsWith(`${prefix}:`)),
    keys.join(" "),
  );
  assert.ok(keys.includes(`${prefix}:ep:${episode.id}`));
  for (const key of keys) {
    const ttl = await store.client.pttl(key);
    assert.ok(ttl > 24 * 3_600_000 && ttl <= retentionMs + 24 * 3_600_000, `${key}: ${ttl}`);
  }
  assert.equal(await store.client.hmget(`${prefix}:ep:${episode.id}`, "reflected_at"), [null]);
});

layout.run();

episodeStoreCases(
  "redis",
  async ({ maxEpisodes, clock }) => {
    const store = stores.store();
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
    await server.close();
  },
);
