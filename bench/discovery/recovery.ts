/**
 * How soon a component is back in the registry after its record is lost, at a 2 s TTL: Redis flushed
 * (FLUSHALL, no reconnection: only the periodic heartbeat brings it back) and Redis restarted empty
 * (the reconnect beats at once). Aim: back within one TTL. Five rounds each; the worst is reported.
 *
 *   npx tsx --conditions=source bench/discovery/recovery.ts
 */
import { serveComponent } from "../../runtime/component/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisServer } from "../../test/support/redis.js";

const TTL = 2_000;
const ROUNDS = 5;
const spec: ComponentSpec = {
  kind: "tool",
  name: "ping-tool",
  description: "answers",
  version: "1.0.0",
  capabilities: [{ name: "ping", key: "ping", description: "pong", type: "tool", internal: false, endpoint: "/api/capabilities/ping" }],
};

const server = await startRedisServer();
const store = createStore({
  env: { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: "recovery" },
  log: () => undefined,
  maxReconnectDelayMs: 200,
}) as RedisStore;
const registry = createRegistry({ store, cache: false });
const running = await serveComponent<{ ping: { input: object; output: object } }>(spec, {
  port: 0,
  handleSignals: false,
  log: () => undefined,
  handlers: { ping: () => ({}) },
  registry,
  registration: { ttlMs: TTL },
});

async function backAfter(lose: () => Promise<void> | void): Promise<number> {
  await lose();
  const started = performance.now();
  for (;;) {
    const ids = await registry
      .byName("ping-tool")
      .then((entries) => entries.map((e) => e.id))
      .catch((): string[] => []);
    if (ids.includes(running.id)) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const flushed: number[] = [];
const restarted: number[] = [];
for (let i = 0; i < ROUNDS; i += 1) {
  flushed.push(await backAfter(() => void server.cli("FLUSHALL")));
  restarted.push(
    await backAfter(async () => {
      await server.stop();
      await server.start();
    }),
  );
}
const show = (name: string, list: number[]) =>
  console.log(
    `${name.padEnd(26)} worst ${Math.max(...list)
      .toFixed(0)
      .padStart(5)} ms of ${ROUNDS}, TTL ${TTL} ms, worst/TTL ${(Math.max(...list) / TTL).toFixed(2)}`,
  );
show("FLUSHALL (heartbeat)", flushed);
show("Redis restarted empty", restarted);

await running.close();
await store.close();
await server.close();
