/**
 * Idempotent scheduled delivery: the executor sends each run's deterministic id in
 * `X-Manifold-Idempotency-Key`, and the agent claims that key before its handler runs. The same
 * delivery twice runs the handler once (the second answers 200 `status: duplicate`); deliveries of
 * one run racing on two replicas run it exactly once, with the claims in memory, on Redis and on a
 * Redis Cluster; a failed run frees its key for the retry; the memory claims are bounded.
 */
import { randomBytes } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { createScheduledExecutor, createScheduledExtension, SCHEDULED_EXECUTOR_QUEUE, SCHEDULED_TASK_TYPE } from "../../runtime/scheduling/index.js";
import { createMemoryRunClaims, createRunClaims, type RunClaims } from "../../runtime/scheduling/run-claims.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createTaskBackend } from "../../runtime/tasks/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { startRedisCluster, startRedisServer } from "../support/redis.js";
import { agent as agentManifest, agentSpec } from "../support/specs.js";
import { eventually } from "../support/wait.js";

const SPEC = agentSpec(agentManifest("clock-agent", { description: "Answers scheduled runs", capabilities: {}, more: { scheduled: true } }));
const quiet = { port: 0, registry: false, handleSignals: false, log: () => {}, handlers: {} } as const;

/** A replica of the agent whose handler counts its runs (per task id) and takes `holdMs` on the real clock. */
async function replica(claims: RunClaims, runs: Map<string, number>, holdMs = 0, fail = () => false) {
  const extension = createScheduledExtension({
    claims,
    handler: async ({ task_id }) => {
      runs.set(task_id, (runs.get(task_id) ?? 0) + 1);
      if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
      if (fail()) throw new Error("scripted failure");
      return `ran ${task_id}`;
    },
  });
  return serveComponent(SPEC, { ...quiet, extensions: [extension] });
}

async function deliver(url: string, taskId: string, key: string | undefined = taskId): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/api/v1/scheduled`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key === undefined ? {} : { "x-manifold-idempotency-key": key }) },
    body: JSON.stringify({ schedule_id: scheduleOf(taskId), task_id: taskId, instruction: "tick", input: {} }),
  });
  return { status: response.status, body: await response.json() };
}

const taskId = () => `sch-${randomBytes(6).toString("hex")}:1767225600`;
const scheduleOf = (id: string) => id.slice(0, id.indexOf(":"));

// Both servers start before any suite is queued: uvu starts running the queue on a timer after the
// first `run()`, so a suite queued after a top-level await would miss that run (or run twice).
const server = await startRedisServer();
const cluster = await startRedisCluster();

/** The cases every claims adapter passes; `claims()` gives one replica's view of the shared claims. */
function claimCases(name: string, claims: () => RunClaims, close: () => Promise<void>) {
  const test = suite(`scheduled idempotency (${name})`);
  test.after(close);

  test("the same delivery twice: the handler runs once, the second answers 200 status duplicate", async () => {
    const runs = new Map<string, number>();
    const agent = await replica(claims(), runs);
    try {
      const id = taskId();
      const first = await deliver(agent.url, id);
      const second = await deliver(agent.url, id);
      assert.is(first.status, 200);
      assert.is(first.body.data.response, `ran ${id}`);
      assert.is(second.status, 200);
      assert.equal(second.body.success, true);
      assert.is(second.body.status, "duplicate");
      assert.is(runs.get(id), 1, "the handler ran once");
    } finally {
      await agent.close();
    }
  });

  test("20 concurrent deliveries of one run on two replicas: exactly one runs; the rest are 503 UNAVAILABLE retryable (in progress) or duplicate", async () => {
    const runs = new Map<string, number>();
    const [a, b] = [await replica(claims(), runs, 50), await replica(claims(), runs, 50)];
    try {
      const id = taskId();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(i % 2 === 0 ? a.url : b.url, id)));
      assert.is(runs.get(id), 1, "exactly one delivery ran the handler");
      assert.is(answers.filter((r) => r.status === 200 && r.body.status === undefined).length, 1);
      for (const other of answers.filter((r) => !(r.status === 200 && r.body.status === undefined))) {
        // Retryable on purpose: the executor dead-letters a non-retryable answer at once, and this run may yet be freed.
        assert.ok(
          other.status === 503
            ? other.body.error.code === "UNAVAILABLE" && other.body.error.retryable === true
            : other.status === 200 && other.body.status === "duplicate",
          JSON.stringify(other),
        );
      }
      assert.is((await deliver(b.url, id)).body.status, "duplicate", "once done, any replica drops it");
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("a claim applied with its answer lost (Redis killed after the script): 503, and the next delivery runs the handler", async () => {
    const runs = new Map<string, number>();
    const real = claims();
    let loseNext = true;
    const losing: RunClaims = {
      ...real,
      claim: async (key, token, ttl) => {
        const state = await real.claim(key, token, ttl);
        if (!loseNext) return state;
        loseNext = false;
        throw new Error("Connection is closed.");
      },
    };
    const agent = await replica(losing, runs);
    try {
      const id = taskId();
      const first = await deliver(agent.url, id);
      assert.is(first.status, 503);
      assert.is(first.body.error.code, "UNAVAILABLE");
      assert.is(runs.get(id), undefined);
      const second = await deliver(agent.url, id);
      assert.is(second.status, 200, "not 'in progress' (503) until the orphaned claim lapses");
      assert.is(runs.get(id), 1);
    } finally {
      await agent.close();
    }
  });

  test("a claim sent twice by one delivery (a client resending after a reconnection) is still that delivery's", async () => {
    const shared = claims();
    const key = taskId();
    assert.is(await shared.claim(key, "token-a", 60_000), "claimed");
    assert.is(await shared.claim(key, "token-a", 60_000), "claimed");
    assert.is(await shared.claim(key, "token-b", 60_000), "running");
    await shared.complete(key, "token-a");
    assert.is(await shared.claim(key, "token-a", 60_000), "done");
  });

  test("a failed run frees its key: the retry runs the handler again", async () => {
    const runs = new Map<string, number>();
    let failing = true;
    const agent = await replica(claims(), runs, 0, () => failing);
    try {
      const id = taskId();
      assert.is((await deliver(agent.url, id)).status, 500);
      failing = false;
      assert.is((await deliver(agent.url, id)).status, 200);
      assert.is(runs.get(id), 2);
      assert.is((await deliver(agent.url, id)).body.status, "duplicate");
    } finally {
      await agent.close();
    }
  });

  test.run();
}

const shared = createMemoryRunClaims();
claimCases(
  "memory",
  () => shared,
  async () => undefined,
);

const redisStores: RedisStore[] = [];
const redisNamespace = `r${randomBytes(4).toString("hex")}`;
claimCases(
  "redis",
  () => {
    const store = createStore({ env: { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: redisNamespace }, log: () => undefined }) as RedisStore;
    redisStores.push(store);
    return createRunClaims(store);
  },
  async () => {
    await Promise.all(redisStores.splice(0).map((s) => s.close()));
    await server.close();
  },
);

const clusterStores: RedisStore[] = [];
const clusterNamespace = `c${randomBytes(4).toString("hex")}`;
claimCases(
  "redis cluster",
  () => {
    const store = createStore({
      env: { MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv, MANIFOLD_REDIS_NAMESPACE: clusterNamespace },
      log: () => undefined,
    }) as RedisStore;
    if (!store.cluster) throw new Error("expected a cluster connection");
    clusterStores.push(store);
    return createRunClaims(store);
  },
  async () => {
    await Promise.all(clusterStores.splice(0).map((s) => s.close()));
    await cluster.close();
  },
);

const rest = suite("scheduled idempotency: the executor's key and the memory bound");

rest("the executor sends the run's id as the key: an occurrence and its replayed copy run the handler once", async () => {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `e${randomBytes(4).toString("hex")}` }, log: () => undefined });
  const registry = createRegistry({ store });
  const runs = new Map<string, number>();
  const extension = createScheduledExtension({
    claims: createMemoryRunClaims(),
    handler: ({ schedule_id }) => {
      runs.set(schedule_id, (runs.get(schedule_id) ?? 0) + 1);
      return "ok";
    },
  });
  const agent = await serveComponent(SPEC, { ...quiet, registry, extensions: [extension] });
  const log = createLogger({ component: "scheduled-executor", env: {}, write: () => undefined });
  const executor = createScheduledExecutor({ store, registry, workerCount: 1, maxRetries: 0, log });
  const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
  try {
    const id = taskId();
    const input = { schedule_id: scheduleOf(id), target_agent: "clock-agent", instruction: "tick", input: {}, due_at: new Date().toISOString() };
    await backend.create({ task_id: id, type: SCHEDULED_TASK_TYPE, input, timeout_ms: 60_000 });
    await backend.create({ task_id: `${id}:replay-1767225700000`, type: SCHEDULED_TASK_TYPE, input, timeout_ms: 60_000 });
    await executor.start();
    await eventually(
      "both tasks finished",
      async () => (await backend.get(`${id}:replay-1767225700000`))?.status === "completed" && (await backend.get(id))?.status === "completed",
    );
    assert.is(runs.get(input.schedule_id), 1, "the replayed copy was a duplicate");
    const replayed = await backend.get(`${id}:replay-1767225700000`);
    assert.is((replayed?.result as { status?: string } | undefined)?.status, "success");
  } finally {
    await executor.stop();
    await backend.close();
    await agent.close();
    await store.close();
  }
});

rest("the memory claims are bounded: past the count the oldest is forgotten", async () => {
  const claims = createMemoryRunClaims({ maxClaims: 3 });
  for (const key of ["a", "b", "c", "d"]) {
    assert.is(await claims.claim(key, "t", 60_000), "claimed");
    await claims.complete(key, "t");
  }
  assert.is(await claims.claim("d", "u", 60_000), "done");
  assert.is(await claims.claim("a", "u", 60_000), "claimed", "the oldest was dropped");
});

rest.run();
