/**
 * MANIFOLD_MODE on real processes sharing a real Redis: an `api` process queues tasks and runs none, a
 * `worker` process serves only /health and runs them, SIGTERM lets a running task finish before the
 * worker exits, and an unknown mode stops the process at startup with a clear message.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createClient } from "../../runtime/component/index.js";
import { createRegistry, discover } from "../../runtime/discovery/index.js";
import { createStore } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { eventually, sleep } from "../support/wait.js";
import { killAll, startFixture, type Fixture } from "./helpers.js";

let server: RedisServer;
let api: Fixture;
let env: Record<string, string>;

test.before(async () => {
  server = await startRedisServer();
  env = { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: "modes", MANIFOLD_TASK_LEASE_MS: "2000" };
  api = await startFixture("tasks/agent.ts", { ...env, MANIFOLD_MODE: "api" });
});
test.after(async () => {
  killAll();
  await server?.close();
});

async function submit(input: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${api.url}/api/v1/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "crunch", input }),
  });
  assert.is(response.status, 202);
  return ((await response.json()) as { task_id: string }).task_id;
}

async function status(taskId: string): Promise<{ status: string; result?: unknown }> {
  return (await (await fetch(`${api.url}/api/v1/tasks/${taskId}`)).json()) as { status: string; result?: unknown };
}

/** Polls the task until it reaches `wanted` (a hang guard says what it last was). */
function reaches(taskId: string, wanted: string): Promise<{ status: string; result?: unknown }> {
  let last = "";
  return eventually(
    `task ${taskId} ${wanted}`,
    async () => {
      const view = await status(taskId);
      last = view.status;
      return view.status === wanted ? view : undefined;
    },
    { intervalMs: 50, describe: () => last },
  );
}

test("api mode queues and runs nothing; a worker process serves only /health and runs the queue", async () => {
  const id = await submit({ n: 3 });
  await sleep(500);
  assert.is((await status(id)).status, "queued", "no workers in an api process");

  const worker = await startFixture("tasks/agent.ts", { ...env, MANIFOLD_MODE: "worker" });
  const health = await fetch(`${worker.url}/health`);
  assert.is(health.status, 200);
  assert.is(((await health.json()) as { status: string }).status, "healthy");
  for (const [method, path] of [
    ["POST", "/api/v1/tasks"],
    ["GET", `/api/v1/tasks/${id}`],
    ["GET", "/api/capabilities"],
  ] as const) {
    const response = await fetch(`${worker.url}${path}`, {
      method,
      ...(method === "POST" ? { headers: { "content-type": "application/json" }, body: "{}" } : {}),
    });
    assert.is(response.status, 404, `${method} ${path} on a worker`);
  }
  assert.equal((await reaches(id, "completed")).result, { square: 9, attempt: 1 });
  worker.child.kill("SIGKILL");
  await worker.exited;
});

test("SIGTERM on a worker: it stops taking tasks, lets the running one finish, and exits 0", async () => {
  const worker = await startFixture("tasks/agent.ts", { ...env, MANIFOLD_MODE: "worker" });
  const id = await submit({ n: 4, ms: 1_500 });
  await reaches(id, "running");
  worker.child.kill("SIGTERM");
  // Submitted once the worker has begun stopping (a loaded machine may deliver the signal late, and a
  // task queued before that is fairly taken).
  await worker.waitForLog(/shutting down/);
  const later = await submit({ n: 5 });
  assert.is(await worker.exited, 0);
  assert.equal((await status(id)).result, { square: 16, attempt: 1 }, "finished before the exit");
  await sleep(300);
  assert.is((await status(later)).status, "queued", "not taken by a stopping worker");
});

test("an unknown MANIFOLD_MODE stops the process at startup with a message naming the variable", async () => {
  const error = await startFixture("tasks/agent.ts", { ...env, MANIFOLD_MODE: "both" }).then(
    () => undefined,
    (e: Error) => e,
  );
  assert.ok(error, "the process must not start");
  assert.match(error!.message, /MANIFOLD_MODE must be empty \(API and workers\), "api" or "worker", not "both"/);
});

test("a worker process is not routed to: name and capability lookups find only the API process; listAll shows the worker as such", async () => {
  const routedEnv = { ...env, MANIFOLD_REDIS_NAMESPACE: "routed" };
  const [apiProcess, workerProcess] = await Promise.all([
    startFixture("tasks/routed-agent.ts", { ...routedEnv, MANIFOLD_MODE: "api" }),
    startFixture("tasks/routed-agent.ts", { ...routedEnv, MANIFOLD_MODE: "worker" }),
  ]);
  const store = createStore({ env: routedEnv, log: () => undefined });
  const registry = createRegistry({ store, cache: false });
  try {
    const byName = await registry.byName("routed-agent");
    assert.equal(
      byName.map((e) => e.port),
      [new URL(apiProcess.url).port].map(Number),
      "only the API process by name",
    );
    assert.equal(
      (await registry.byCapability("ping")).map((e) => e.port),
      [Number(new URL(apiProcess.url).port)],
    );
    assert.equal(
      (await registry.byType("agent")).map((e) => e.port),
      [Number(new URL(apiProcess.url).port)],
    );
    const worker = (await registry.listAll()).find((e) => e.port === Number(new URL(workerProcess.url).port));
    assert.ok(worker, "the worker is still visible to listAll (the dashboard, operators)");
    assert.is(worker!.metadata["role"], "worker");
    assert.equal(worker!.capabilities, [], "a worker serves no capability");
    const client = createClient<{ ping: { input: {}; output: { pong: string } } }>(
      {
        kind: "agent",
        name: "routed-agent",
        description: "",
        version: "1.0.0",
        capabilities: [{ name: "ping", key: "ping", description: "", type: "tool", internal: false, endpoint: "/api/capabilities/ping" }],
      },
      { baseUrl: discover(registry, "routed-agent") },
    );
    const answers = await Promise.all(Array.from({ length: 12 }, () => client.ping({})));
    assert.ok(
      answers.every((a) => a.pong === "api"),
      JSON.stringify(answers),
    );
  } finally {
    await registry.close();
    await store.close();
  }
});

test.run();
