/**
 * The typed task client against a served agent: submit, get, cancel, and wait with growing pauses,
 * a signal, a time limit, transient failures retried and task failures as ManifoldErrors.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { RunningComponent } from "../../runtime/component/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createMemoryTaskBackend, createTaskClient, type TaskBackend, type TaskClient } from "../../runtime/tasks/index.js";
import { callerHeaders, startRecorder } from "../outbound/support.js";
import { startServer } from "../runtime/support.js";
import { createManualClock } from "../support/clock.js";
import { eventually, sleep, within } from "../support/wait.js";
import { agentSpec, serveAgent, silentLogger } from "./support.js";
import { rejection } from "../support/errors.js";

type Types = {
  echo: { input: { text: string; times?: number }; output: { text: string } };
  work: { input: { ms?: number; fail?: "error" | "panic"; held?: boolean }; output: string };
  slowJob: { input: Record<string, never>; output: string };
  summarise: { input: { text: string; words?: number }; output: { summary: string } };
};

interface Context {
  backend: TaskBackend;
  running?: RunningComponent;
  client?: TaskClient<Types>;
}
const test = suite<Context>("typed task client", { backend: createMemoryTaskBackend() });

/** `work` with `held: true` runs until the test lets it finish. */
let release: () => void = () => undefined;
let released = new Promise<void>((resolve) => (release = resolve));

test.before(async (context) => {
  context.running = await serveAgent({
    backend: context.backend,
    workerCount: 8,
    runWorkflow: async (_workflow, input) => ({ summary: (input as { text: string }).text.slice(0, 3) }),
    handlers: {
      echo: async (input: Types["echo"]["input"]) => ({ text: input.text.repeat(input.times ?? 1) }),
      work: async (input: Types["work"]["input"], ctx) => {
        if (input.fail === "error") throw new ManifoldError("CONFLICT", "the hotel is full");
        if (input.fail === "panic") throw new TypeError("undefined is not a function");
        if (input.held === true) {
          await released;
          return "worked";
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, input.ms ?? 0);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          });
        });
        return "worked";
      },
      slowJob: async (_input, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("too late"))),
    },
    log: silentLogger(),
  });
  context.client = createTaskClient<Types>(agentSpec, { baseUrl: context.running.url });
});
test.after(async ({ running, backend }) => {
  await running?.close();
  await backend.close();
});

test("submit → 202 answer; wait → the typed result; get → the finished view", async ({ client }) => {
  const submitted = await client!.echo.submit({ text: "ha", times: 3 });
  assert.is(submitted.status, "queued");
  assert.is(submitted.status_url, `/api/v1/tasks/${submitted.task_id}`);
  const result = await client!.echo.wait(submitted.task_id);
  assert.equal(result, { text: "hahaha" });
  const got = await client!.echo.get(submitted.task_id);
  assert.is(got.status, "completed");
  assert.equal(got.result, { text: "hahaha" });
  const summary = await client!.summarise.wait((await client!.summarise.submit({ text: "Lisbon" })).task_id);
  assert.equal(summary, { summary: "Lis" }, "a workflow task type");
});

test("submit errors come back as ManifoldErrors with the envelope's code and details", async ({ client }) => {
  const invalid = await rejection(client!.echo.submit({ text: 5 } as never));
  assert.is(invalid.code, "INVALID_INPUT");
  assert.equal(
    invalid.details?.map((d) => d.pointer),
    ["/input/text"],
  );
  const timeout = await rejection(client!.work.submit({}, { timeout: "soon" }));
  assert.is(timeout.code, "INVALID_TIMEOUT");
  const missing = await rejection(client!.work.get("0b5c3f38-9d4e-4f7a-8c1e-2a3b4c5d6e7f"));
  assert.is(missing.code, "NOT_FOUND");
  assert.is(missing.status, 404);
});

test("wait rejects with the task's own error code: HANDLER_ERROR, HANDLER_PANIC, TASK_TIMEOUT, TASK_CANCELLED", async ({ client }) => {
  const handlerError = await rejection(client!.work.wait((await client!.work.submit({ fail: "error" })).task_id));
  assert.is(handlerError.code, "HANDLER_ERROR");
  assert.is(handlerError.message, "the hotel is full");
  const panic = await rejection(client!.work.wait((await client!.work.submit({ fail: "panic" })).task_id));
  assert.is(panic.code, "HANDLER_PANIC");
  assert.not.match(panic.message, /undefined is not a function/);
  const timedOut = await rejection(client!.slowJob.wait((await client!.slowJob.submit({}, { timeout: "300ms" })).task_id));
  assert.is(timedOut.code, "TASK_TIMEOUT");

  const { task_id: id } = await client!.work.submit({ ms: 10_000 });
  await eventually("running", async () => {
    const v = await client!.work.get(id);
    return v.status === "running" ? v : undefined;
  });
  const waiting = rejection(client!.work.wait(id));
  const cancelled = await client!.work.cancel(id);
  assert.is(cancelled.status, "cancelled");
  assert.is((await waiting).code, "TASK_CANCELLED");
  const again = await rejection(client!.work.cancel(id));
  assert.is(again.code, "TASK_NOT_CANCELLABLE");
  assert.is(again.status, 409);
});

test("wait polls with pauses doubling from intervalMs up to maxIntervalMs", async ({ running, backend }) => {
  // The pauses are on a clock moved by hand, and only while the wait is pausing (one pending timer),
  // so the gaps between polls are the pauses themselves.
  const clock = createManualClock();
  const polls: number[] = [];
  // The base URL source is asked once per request: the client's calls, with their times.
  const counted = createTaskClient<Types>(agentSpec, {
    baseUrl: () => {
      polls.push(clock.now());
      return running!.url;
    },
  });
  const { task_id: id } = await counted.work.submit({ held: true });
  polls.length = 0;
  let result: unknown;
  const waiting = counted.work.wait(id, { intervalMs: 50, maxIntervalMs: 400, clock }).then((value) => (result = value));
  const pausing = () => eventually("the wait pausing between polls", () => clock.pending() === 1);
  while (polls.length < 7) {
    await pausing();
    await clock.advance(50);
  }
  release();
  await eventually("the task completed", async () => (await backend.get(id))?.status === "completed");
  while (result === undefined) {
    await eventually("the wait pausing, or done", () => clock.pending() === 1 || result !== undefined);
    if (result === undefined) await clock.advance(50);
  }
  await waiting;
  assert.is(result, "worked");
  const gaps = polls.slice(1).map((t, i) => t - polls[i]!);
  assert.equal(
    gaps,
    gaps.map((_, i) => Math.min(50 * 2 ** i, 400)),
    "50, 100, 200, 400, 400 …",
  );
  released = new Promise<void>((resolve) => (release = resolve));
});

test("wait honours its signal (ABORTED, the task keeps running) and its time limit (TIMEOUT)", async ({ client }) => {
  const { task_id: id } = await client!.work.submit({ ms: 10_000 });
  const controller = new AbortController();
  // A pause that never ends on its own (the clock stands still): only the abort can end the wait.
  const clock = createManualClock();
  const waiting = rejection(client!.work.wait(id, { signal: controller.signal, intervalMs: 1_000, clock }));
  await eventually("the wait pausing between polls", () => clock.pending() === 1);
  controller.abort();
  const aborted = await within("the abort to end the wait", waiting);
  assert.is(aborted.code, "ABORTED");
  assert.is(clock.pending(), 0, "its pause is cleared");
  assert.is((await client!.work.get(id)).status === "running" || (await client!.work.get(id)).status === "queued", true, "waiting stopped, not the task");
  const limited = await rejection(client!.work.wait(id, { timeoutMs: 300 }));
  assert.is(limited.code, "TIMEOUT");
  assert.match(limited.message, /did not finish within 300 ms/);
  await client!.work.cancel(id);
  const already = new AbortController();
  already.abort();
  assert.is((await rejection(client!.work.wait(id, { signal: already.signal }))).code, "ABORTED");
});

test("a poll that cannot reach the agent (restart, dropped connection) is retried, not reported as the task's failure", async ({ running }) => {
  const closed = await startServer(() => undefined);
  const deadUrl = closed.url;
  await closed.close();
  let calls = 0;
  const flaky = createTaskClient<Types>(agentSpec, {
    baseUrl: () => {
      calls += 1;
      return calls >= 2 && calls <= 3 ? deadUrl : running!.url;
    },
  });
  const { task_id: id } = await flaky.work.submit({ ms: 100 });
  assert.is(await flaky.work.wait(id, { intervalMs: 20 }), "worked");
  assert.ok(calls >= 4);
  const down = createTaskClient<Types>(agentSpec, { baseUrl: deadUrl });
  // On a clock the test moves: one poll (refused), a pause, and the time limit reached with no poll
  // racing it, however slow this machine is.
  const clock = createManualClock();
  const waiting = rejection(down.work.wait(id, { intervalMs: 10_000, timeoutMs: 10_000, clock }));
  await eventually("the wait pausing after its refused poll", () => clock.pending() === 1);
  await clock.advance(10_000);
  const unreachable = await within("the wait to end at its time limit", waiting);
  assert.is(unreachable.code, "NETWORK_ERROR", "past the time limit the last failure is reported");
  await sleep(0);
});

test("calls go through the outbound caller: token, propagated headers and ids; GET has no body and no Content-Type", async () => {
  const recorder = await startRecorder(
    (req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ method: req.method })),
  );
  try {
    const client = createTaskClient<Types>(agentSpec, { baseUrl: `${recorder.url}/`, token: "t0ken", headers: { "x-tenant": "acme" } });
    await client.work.get("task:1", { requestId: "req-7" });
    await client.work.submit({ ms: 1 }, { timeout: "90s", headers: { "x-tenant": "globex" } });
    await client.work.cancel("task:1");
    const [get, submitted, cancel] = recorder.received;
    assert.is(get?.url, "/api/v1/tasks/task%3A1");
    assert.equal(callerHeaders(get!.headers), {
      authorization: "Bearer t0ken",
      "x-tenant": "acme",
      "x-manifold-request-id": "req-7",
      "x-manifold-step-id": "<uuid>",
    });
    assert.is(get?.body, "");
    assert.is(submitted?.url, "/api/v1/tasks");
    assert.equal(JSON.parse(submitted!.body), { type: "work", input: { ms: 1 }, timeout: "90s" });
    assert.is(submitted?.headers["x-tenant"], "globex", "per call wins");
    assert.is(submitted?.headers["content-type"], "application/json");
    assert.is(cancel?.url, "/api/v1/tasks/task%3A1/cancel");
  } finally {
    await recorder.close();
  }
});

test("bad wait options are refused at once", async ({ client }) => {
  for (const [options, message] of [
    [{ intervalMs: 0 }, /intervalMs must be a positive number/],
    [{ timeoutMs: -1 }, /timeoutMs must be a positive number/],
  ] as const) {
    const error = await client!.work.wait("x", options).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(error, RangeError);
    assert.match((error as Error).message, message);
  }
});

test.run();
