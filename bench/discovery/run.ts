/**
 * Lookup-by-capability latency with 1,000 registered components: the Redis adapter (index sets, one
 * Lua script per lookup) on a real redis-server started by the test harness, the memory adapter, and
 * for comparison the naive way a registry without indexes would do it (SCAN every record key, fetch
 * each record, filter in the process). Sequential lookups, so the figure is latency, not throughput.
 *
 * Then the lookup a client makes (paced.ts): the default registry stack under heartbeats, with the
 * catalog cache's keep-warm timer, with read-ahead on lookups only (before it), without read-ahead
 * (the cache before issue 31), and a PING paced the same on the reader's connection as the floor for
 * anything that waits for Redis; sides alternated per round, medians of rounds. Aim (issue 31): p99 ≤ 1 ms.
 *
 *   npm run bench:discovery        BENCH_LOOKUPS=2000 (per measurement)   BENCH_PACED=4000
 *   npx tsx --conditions=source bench/discovery/breakdown.ts   (where the time goes)
 */
import { loadavg } from "node:os";
import type { Redis } from "ioredis";
import { createMemoryRegistry, createRedisRegistry, type ComponentRegistration, type Registry } from "../../runtime/discovery/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisServer } from "../../test/support/redis.js";
import { catalog, COMPONENTS, NAMES } from "./catalog.js";
import { measurePaced } from "./paced.js";

const LOOKUPS = Number(process.env["BENCH_LOOKUPS"] ?? 2_000);
const PACED = Number(process.env["BENCH_PACED"] ?? 4_000);
const PACED_ROUNDS = Number(process.env["BENCH_PACED_ROUNDS"] ?? 3);
const AIM_P99_MS = 1;
const WARMUP = 200;

interface Figures {
  readonly median: number;
  readonly p99: number;
  readonly results: number;
}

async function measure(lookup: () => Promise<unknown[]>, count = LOOKUPS): Promise<Figures> {
  for (let i = 0; i < Math.min(WARMUP, count); i += 1) await lookup();
  const times: number[] = [];
  let results = 0;
  for (let i = 0; i < count; i += 1) {
    const start = process.hrtime.bigint();
    results = (await lookup()).length;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, p99: times[Math.floor(times.length * 0.99)]!, results };
}

/** What a registry without index sets does: SCAN the record keys, fetch each record, filter here. */
function scanAll(store: RedisStore, capability: string): () => Promise<unknown[]> {
  const client = store.client as Redis;
  const pattern = `${store.keys.shared("registry", "component")}:*`;
  return async () => {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await client.scan(cursor, "MATCH", pattern, "COUNT", 1_000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== "0");
    const pipeline = client.pipeline();
    for (const key of keys) pipeline.hget(key, "record");
    const records = ((await pipeline.exec()) ?? []).map(([, json]) => JSON.parse(String(json)) as ComponentRegistration);
    return records.filter((r) => r.capabilities.some((c) => c.name === capability));
  };
}

const ms = (n: number) => `${n.toFixed(3)} ms`;

const server = await startRedisServer();
const store = createStore({ env: { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: "bench" }, log: () => undefined }) as RedisStore;
try {
  const redis = createRedisRegistry(store, { connectWaitMs: 5_000 });
  const memory = createMemoryRegistry();
  const components = catalog();
  for (const registry of [redis, memory] as Registry[]) {
    for (let i = 0; i < components.length; i += 100) await Promise.all(components.slice(i, i + 100).map((c) => registry.register(c, { ttlMs: 600_000 })));
  }
  const one = "cap_31";
  const both = ["cap_31", "cap_62"];
  const client = store.client as Redis;
  const rows: [string, Figures][] = [
    ["redis: PING (floor: one round trip)", await measure(async () => [await client.ping()])],
    ["redis: byCapability(1)", await measure(() => redis.byCapability(one))],
    ["redis: byCapability(2, AND)", await measure(() => redis.byCapability(both))],
    // Tens of milliseconds a lookup: a tenth of the runs still gives a stable median.
    ["redis: naive SCAN + fetch all + filter", await measure(scanAll(store, one), Math.ceil(LOOKUPS / 10))],
    ["memory: byCapability(1)", await measure(() => memory.byCapability(one))],
    ["memory: byCapability(2, AND)", await measure(() => memory.byCapability(both))],
  ];
  console.log(
    `\nLookup by capability, ${COMPONENTS} registered components (${NAMES} names × ${COMPONENTS / NAMES} replicas, 3 capabilities each), ${LOOKUPS} sequential lookups each, redis-server ${server.cli("INFO", "server").match(/redis_version:(\S+)/)?.[1]} on loopback\n`,
  );
  console.log(`${"".padEnd(40)} ${"median".padStart(10)} ${"p99".padStart(10)} ${"results".padStart(8)}`);
  for (const [label, f] of rows) console.log(`${label.padEnd(40)} ${ms(f.median).padStart(10)} ${ms(f.p99).padStart(10)} ${String(f.results).padStart(8)}`);
  const [floor, indexed, naive] = [rows[0]![1], rows[1]![1], rows[3]![1]];
  console.log(
    `\nnaive SCAN / indexed (redis, 1 capability): median ${(naive.median / indexed.median).toFixed(1)}×, p99 ${(naive.p99 / indexed.p99).toFixed(1)}×; indexed / PING: median ${(indexed.median / floor.median).toFixed(2)}×, p99 ${(indexed.p99 / floor.p99).toFixed(2)}×`,
  );
  // Sides alternate per round (the machine is shared); each figure is the median of its rounds.
  const sides = [
    ["PING, paced the same (floor: a wait for Redis)", { ping: true }],
    ["createRegistry (cache, key): byName, keep-warm", {}],
    ["the same, read-ahead on lookup only (before)", { keepWarmMs: 0 }],
    ["the same without read-ahead (before that)", { refreshAheadMs: 0, keepWarmMs: 0 }],
  ] as const;
  const byRound = sides.map(() => [] as Awaited<ReturnType<typeof measurePaced>>[]);
  for (let round = 0; round < PACED_ROUNDS; round += 1)
    for (let k = 0; k < sides.length; k += 1) {
      const i = (k + round) % sides.length;
      byRound[i]!.push(await measurePaced({ url: server.url, lookups: Math.ceil(PACED / PACED_ROUNDS), ...sides[i]![1] }));
    }
  const mid = <T>(list: T[], by: (t: T) => number): number => list.map(by).sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  const paced = sides.map(([label], i) => {
    const rounds = byRound[i]!;
    return [
      label,
      {
        median: mid(rounds, (r) => r.median),
        p99: mid(rounds, (r) => r.p99),
        waited: rounds.reduce((n, r) => n + r.waited, 0),
        lookups: rounds.reduce((n, r) => n + r.lookups, 0),
      },
    ] as const;
  });
  console.log(
    `\nA client's lookup: ${PACED} lookups over the ${NAMES} names, one about every millisecond, a re-signed heartbeat every 10 ms; ${PACED_ROUNDS} rounds, sides alternated, median of rounds; load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}\n`,
  );
  console.log(`${"".padEnd(48)} ${"median".padStart(10)} ${"p99".padStart(10)}   waited for Redis`);
  for (const [label, f] of paced) console.log(`${label.padEnd(48)} ${ms(f.median).padStart(10)} ${ms(f.p99).padStart(10)}   ${f.waited} of ${f.lookups}`);
  const [pingPaced, warm, lookupOnly] = [paced[0]![1], paced[1]![1], paced[2]![1]];
  console.log(
    `\naim: a client's lookup p99 ≤ ${AIM_P99_MS} ms: ${warm.p99.toFixed(3)} ms (${warm.p99 <= AIM_P99_MS ? "met" : "MISSED"}); paced PING p99 ${pingPaced.p99.toFixed(3)} ms (lookup / PING ${(warm.p99 / pingPaced.p99).toFixed(2)}×); read-ahead on lookup only ${lookupOnly.p99.toFixed(3)} ms; load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await store.close();
  await server.close();
}
