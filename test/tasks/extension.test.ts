/**
 * The tasks extension on a served agent: MANIFOLD_MODE (embedded, api, worker), startup checks,
 * workflow task types through runWorkflow, and progress seen through GET.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { RunningComponent } from "../../runtime/component/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createMemoryTaskBackend, createTasksExtension, resolveMode, type RunWorkflowOptions, type TaskBackend } from "../../runtime/tasks/index.js";
import { json, rawRequest } from "../runtime/support.js";
import { eventually, sleep } from "../support/wait.js";
import { agentSpec, post, serveAgent, silentLogger, submit, view } from "./support.js";

interface Context {
  servers: RunningComponent[];
  backends: TaskBackend[];
}
const test = suite<Context>("tasks extension and modes", { servers: [], backends: [] });

test.after.each(async (context) => {
  await Promise.all(context.servers.map((s) => s.close()));
  await Promise.all(context.backends.map((b) => b.close()));
  context.servers = [];
  context.backends = [];
});

const handlers = {
  echo: async (input: { text: string; times?: number }) => ({ text: input.text.repeat(input.times ?? 1) }),
  work: async () => "worked",
  slowJob: async () => "slow",
};

function backendFor(context: Context): TaskBackend {
  const backend = createMemoryTaskBackend();
  context.backends.push(backend);
  return backend;
}

async function serve(context: Context, options: Parameters<typeof serveAgent>[0]): Promise<string> {
  const running = await serveAgent(options);
  context.servers.push(running);
  return running.url;
}

const finished = (base: string, id: string) =>
  eventually(`task ${id} finished`, async () => {
    const v = await view(base, id);
    return v.status !== "queued" && v.status !== "running" ? v : undefined;
  });

test("resolveMode: empty or unset is embedded; api and worker; anything else is a startup error naming the variable", () => {
  assert.is(resolveMode({}), "embedded");
  assert.is(resolveMode({ MANIFOLD_MODE: "" }), "embedded");
  assert.is(resolveMode({ MANIFOLD_MODE: "api" }), "api");
  assert.is(resolveMode({ MANIFOLD_MODE: " worker " }), "worker");
  assert.throws(
    () => resolveMode({ MANIFOLD_MODE: "workers" }),
    (e: Error) => e instanceof RangeError && /MANIFOLD_MODE must be empty \(API and workers\), "api" or "worker", not "workers"/.test(e.message),
  );
  assert.throws(() => resolveMode({ MANIFOLD_MODE: "API" }), /MANIFOLD_MODE/);
  assert.throws(() => createTasksExtension(agentSpec, { handlers, runWorkflow: async () => ({}), env: { MANIFOLD_MODE: "both" } }), /MANIFOLD_MODE must be/);
  assert.throws(() => createTasksExtension(agentSpec, { handlers, mode: "all" as never }), /mode must be "embedded", "api" or "worker"/);
  assert.is(createTasksExtension(agentSpec, { handlers, runWorkflow: async () => ({}), env: { MANIFOLD_MODE: "worker" } }).healthOnly, true);
});

test("startup checks: every handled task type needs a handler, none unknown, workflow types need runWorkflow; api mode needs none", () => {
  const runWorkflow = async () => ({});
  const { slowJob: _omitted, ...missing } = handlers;
  assert.throws(
    () => createTasksExtension(agentSpec, { handlers: missing, runWorkflow, mode: "embedded" }),
    /task handlers.slowJob must be a function \(task type slow_job\)/,
  );
  assert.throws(
    () => createTasksExtension(agentSpec, { handlers: { ...handlers, extra: async () => 1 }, runWorkflow, mode: "worker" }),
    /task handlers.extra is not a task type of errand-agent/,
  );
  assert.throws(
    () => createTasksExtension(agentSpec, { handlers: { ...handlers, summarise: async () => 1 }, runWorkflow }),
    /summarise runs workflow summarise-text; it takes no handler/,
  );
  assert.throws(() => createTasksExtension(agentSpec, { handlers, mode: "embedded" }), /task type summarise runs workflow summarise-text: pass runWorkflow/);
  assert.throws(
    () => createTasksExtension(agentSpec, { handlers, runWorkflow, mode: "embedded", env: { WORKER_COUNT: "-3" } }),
    /WORKER_COUNT must be an integer/,
  );
  assert.throws(() => createTasksExtension({ ...agentSpec, agent: { ...agentSpec.agent!, tasks: [] } }, { mode: "api" }), /declares no task types/);
  assert.is(createTasksExtension(agentSpec, { mode: "api" }).mode, "api", "api mode runs no handler");
});

test("embedded mode (default backend, nothing configured): the API and the workers in one process", async (context) => {
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (name === "REDIS_URL" || name.startsWith("MANIFOLD_REDIS_")) delete process.env[name];
  try {
    const base = await serve(context, { handlers, runWorkflow: async () => ({}), env: {} });
    const id = await submit(base, { type: "echo", input: { text: "ab", times: 3 } });
    const done = await finished(base, id);
    assert.is(done.status, "completed");
    assert.equal(done.result, { text: "ababab" });
    assert.ok(done.started_at !== undefined && done.completed_at !== undefined);
  } finally {
    process.env = saved;
  }
});

test("api mode serves the task API and runs nothing; worker mode serves only /health and runs the tasks; together they are one system", async (context) => {
  const backend = backendFor(context);
  const api = await serve(context, { handlers, mode: "api", backend });
  const id = await submit(api, { type: "work", input: {} });
  await sleep(300);
  assert.is((await view(api, id)).status, "queued", "no workers in api mode");

  const worker = await serve(context, { handlers, runWorkflow: async () => ({}), mode: "worker", backend });
  assert.is((await rawRequest(`${worker}/health`)).status, 200);
  for (const path of ["/api/v1/tasks", "/api/capabilities"]) assert.is((await post(`${worker}${path}`, { type: "work" })).status, 404, `${path} on a worker`);
  assert.is((await rawRequest(`${worker}/api/v1/tasks/${id}`)).status, 404);

  const done = await finished(api, id);
  assert.is(done.status, "completed");
  assert.is(done.result, "worked");
});

test("a workflow task type runs its workflow through runWorkflow with no handler code; progress shows on GET", async (context) => {
  const calls: { workflow: string; input: unknown; options: RunWorkflowOptions }[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const runWorkflow = async (workflow: string, input: unknown, options: RunWorkflowOptions) => {
    calls.push({ workflow, input, options });
    const { text, words = 1 } = input as { text: string; words?: number };
    if (text === "fail") throw new ManifoldError("WORKFLOW_FAILED", "step summarise failed: upstream 503");
    await options.progress({ current_step: 1, total_steps: 2, step_name: "summarise", percentage: 50 });
    await held;
    return { summary: text.split(" ").slice(0, words).join(" ") };
  };
  const base = await serve(context, { handlers, runWorkflow, backend: backendFor(context) });
  const id = await submit(base, { type: "summarise", input: { text: "the quick brown fox", words: 2 } });
  const running = await eventually("progress visible", async () => {
    const v = await view(base, id);
    return v.progress !== undefined ? v : undefined;
  });
  assert.is(running.status, "running");
  assert.equal(running.progress, { current_step: 1, total_steps: 2, step_name: "summarise", percentage: 50 });
  release();
  const done = await finished(base, id);
  assert.equal(done.result, { summary: "the quick" });
  assert.is(calls[0]?.workflow, "summarise-text");
  assert.equal(calls[0]?.input, { text: "the quick brown fox", words: 2 });
  assert.is(calls[0]?.options.taskId, id);
  assert.instance(calls[0]?.options.signal, AbortSignal);

  const failed = await finished(base, await submit(base, { type: "summarise", input: { text: "fail" } }));
  assert.is(failed.status, "failed");
  assert.equal(failed.error, { code: "HANDLER_ERROR", message: "workflow summarise-text failed (WORKFLOW_FAILED): step summarise failed: upstream 503" });
});

test("close stops the workers gracefully: a running task finishes within the shutdown timeout", async (context) => {
  const backend = backendFor(context);
  const lines: string[] = [];
  let finishedRun = false;
  const running = await serveAgent({
    backend,
    runWorkflow: async () => ({}),
    log: silentLogger(lines),
    handlers: {
      ...handlers,
      work: async () => {
        await sleep(300);
        finishedRun = true;
        return "done before exit";
      },
    },
  });
  const id = await submit(running.url, { type: "work", input: {} });
  await eventually("running", async () => {
    const s = (await backend.get(id))?.status;
    return s === "running" ? s : undefined;
  });
  await running.close();
  assert.ok(finishedRun);
  assert.is((await backend.get(id))?.result, "done before exit");
  assert.ok(lines.some((l) => l.includes("task worker(s) started in this process (MANIFOLD_MODE=embedded)")));
});

test("POST /api/v1/tasks through the served agent answers same-origin (no CORS header unless allowlisted) and the envelope like every route", async (context) => {
  const base = await serve(context, { handlers, mode: "api", backend: backendFor(context) });
  const response = await post(`${base}/api/v1/tasks`, { type: "work" });
  assert.is(response.status, 202);
  assert.is(response.headers["access-control-allow-origin"], undefined);
  const unknown = await post(`${base}/api/v1/tasks`, { type: "nope" });
  assert.is((json(unknown) as { error: { code: string } }).error.code, "UNKNOWN_TASK_TYPE");
});

test.run();
