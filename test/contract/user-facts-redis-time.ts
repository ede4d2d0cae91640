/**
 * Time passing on Redis for the fact store contract: every key of the store's namespace loses `ms` of
 * its TTL (a key whose TTL runs out is deleted), which is what waiting that long would do. On a
 * Cluster each master is asked for its own keys.
 */
import { Cluster } from "ioredis";
import type { RedisClient, RedisStore } from "../../runtime/store/index.js";

async function keysOf(client: RedisClient, pattern: string): Promise<string[]> {
  if (!(client instanceof Cluster)) return client.keys(pattern);
  return (await Promise.all(client.nodes("master").map((node) => node.keys(pattern)))).flat();
}

export async function advanceRedis(store: RedisStore, ms: number): Promise<void> {
  const { client } = store;
  for (const key of await keysOf(client, `manifold:v1:${store.namespace}:*`)) {
    const ttl = await client.pttl(key);
    if (ttl < 0) continue;
    if (ttl <= ms) await client.del(key);
    else await client.pexpire(key, ttl - ms);
  }
}
