/**
 * The task API and workers on a real Redis: the whole round trip, a store that goes away (503
 * UNAVAILABLE, retryable, no internals) and comes back (the same agent serves again, no restart).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createTaskBackend, type TaskBackend } from "../../runtime/tasks/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { json } from "../runtime/support.js";
import { eventually } from "../support/wait.js";
import { post, serveAgent, silentLogger, submit, view } from "./support.js";

interface Context {
  server?: RedisServer;
  store?: RedisStore;
  backend?: TaskBackend;
  running?: RunningComponent;
}
const test = suite<Context>("task API on Redis", {});

test.before(async (context) => {
  context.server = await startRedisServer();
  context.store = createStore({
    env: { REDIS_URL: context.server.url, MANIFOLD_REDIS_NAMESPACE: "api" },
    log: () => undefined,
    maxReconnectDelayMs: 200,
  }) as RedisStore;
  context.backend = createTaskBackend({ store: context.store, queue: "errand-agent" });
  context.running = await serveAgent({
    backend: context.backend,
    log: silentLogger(),
    runWorkflow: async (_name, input) => ({ words: String((input as { text: string }).text).split(" ").length }),
    handlers: { echo: async (input: { text: string }) => ({ text: input.text }), work: async () => "worked", slowJob: async () => "slow" },
  });
});
test.after(async ({ running, backend, store, server }) => {
  await running?.close();
  await backend?.close();
  await store?.close();
  await server?.close();
});

test("submit, run and read back through Redis", async ({ running }) => {
  const base = running!.url;
  const id = await submit(base, { type: "summarise", input: { text: "one two three" } });
  const done = await eventually("completed", async () => {
    const v = await view(base, id);
    return v.status === "completed" ? v : undefined;
  });
  assert.equal(done.result, { words: 3 });
});

test("while Redis is down the API answers 503 UNAVAILABLE (retryable, nothing internal); once it is back, it serves again", async ({ running, server }) => {
  const base = running!.url;
  await server!.stop();
  const refused = await post(`${base}/api/v1/tasks`, { type: "work", input: {} });
  assert.is(refused.status, 503, refused.text);
  const { error } = json(refused) as { error: { code: string; retryable: boolean; message: string } };
  assert.is(error.code, "UNAVAILABLE");
  assert.is(error.retryable, true);
  assert.not.match(error.message, /at \w+ \(|node_modules/, "no stack");
  assert.not.match(refused.text, /127\.0\.0\.1|redis:\/\/|ECONNREFUSED/, "what failed, not where");
  await server!.start();
  const id = await eventually("submits accepted again", async () => {
    const r = await post(`${base}/api/v1/tasks`, { type: "work", input: {} });
    return r.status === 202 ? r : undefined;
  });
  const taskId = (json(id) as { task_id: string }).task_id;
  assert.is(
    (
      await eventually("the workers recovered too", async () => {
        const v = await view(base, taskId);
        return v.status === "completed" ? v : undefined;
      })
    ).result,
    "worked",
  );
});

test.run();
