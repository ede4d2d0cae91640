import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createCheckpointStore } from "../../runtime/hitl/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisServer } from "../support/redis.js";
import { checkpointStoreCases, stepCheckpoint } from "./checkpoints.cases.js";
import { freshRedisStores } from "./fresh-stores.js";
import { sleep } from "../support/wait.js";

const server = await startRedisServer();
const stores = freshRedisStores(() => ({ REDIS_URL: server.url }));
const replicas: RedisStore[] = [];
const BASE = Date.parse("2030-06-01T00:00:00.000Z");

const layout = suite("checkpoint store (redis key layout)");

layout("every key shares the {checkpoints} hash tag; a decided record carries the retention TTL; a purge pass leaves no key behind", async () => {
  const store = stores.store();
  const checkpoints = createCheckpointStore({ store, env: {}, retentionMs: 400 });
  const cp = stepCheckpoint();
  await checkpoints.create(cp);
  const prefix = `manifold:v1:${store.namespace}:{checkpoints}`;
  const member = `${String(Date.parse(cp.created_at)).padStart(15, "0")}:${cp.checkpoint_id}`;
  const record = `${prefix}:cp:${cp.checkpoint_id}`;
  assert.equal(
    (await store.client.keys(`${prefix}:*`)).sort(),
    [`${prefix}:all`, record, `${prefix}:expiry`, `${prefix}:purge`, `${prefix}:status:pending`].sort(),
  );
  assert.equal(await store.client.hmget(record, "status", "expires_ms", "default_action", "member"), [
    "pending",
    String(Date.parse(cp.expires_at)),
    "reject",
    member,
  ]);
  const { status: _s, ...body } = { ...cp, status: "pending" };
  assert.equal(JSON.parse((await store.client.hget(record, "body"))!), body);
  assert.is(Number(await store.client.zscore(`${prefix}:expiry`, cp.checkpoint_id)), Date.parse(cp.expires_at));
  assert.ok((await store.client.pttl(record)) > 5 * 60_000, "undecided: kept until its expiry plus retention");
  await checkpoints.command(cp.checkpoint_id, "reject", { now: BASE });
  assert.ok((await store.client.pttl(record)) <= 400);
  assert.equal(await store.client.zrange(`${prefix}:status:rejected`, "0", "-1"), [member]);
  assert.is(await store.client.exists(`${prefix}:status:pending`, `${prefix}:expiry`), 0);
  await sleep(500);
  await checkpoints.expireDue(BASE, 10);
  assert.equal(await store.client.keys(`${prefix}:*`), [], "retention ended: record and index entries gone");
});

layout.run();

checkpointStoreCases(
  "redis",
  async (options) => {
    const store = stores.store();
    const checkpoints = createCheckpointStore({ store, env: {}, ...options });
    if (checkpoints.kind !== "redis") throw new Error("expected the redis adapter");
    return {
      checkpoints,
      replica: async () => {
        const again = createStore({ env: stores.envOf(store), log: () => undefined }) as RedisStore;
        replicas.push(again);
        return createCheckpointStore({ store: again, env: {}, ...options });
      },
    };
  },
  async () => {
    await Promise.all(replicas.map((s) => s.close()));
    await stores.closeAll();
    await server.close();
  },
);
