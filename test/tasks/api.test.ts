/**
 * The task API over real HTTP, in api mode (no workers, so a task stays where the test put it):
 * submit, status, cancel, and every error code with its status and JSON pointer.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryTaskBackend } from "../../runtime/tasks/memory-backend.js";
import type { TaskBackend } from "../../runtime/tasks/index.js";
import { json, rawRequest } from "../runtime/support.js";
import { post, serveAgent, submit, view } from "./support.js";

interface Context {
  backend: TaskBackend;
  running?: RunningComponent;
  base: string;
}
const test = suite<Context>("task API", { backend: createMemoryTaskBackend(), base: "" });

test.before(async (context) => {
  context.running = await serveAgent({ mode: "api", backend: context.backend, maxTimeoutMs: 2 * 60 * 60_000 });
  context.base = context.running.url;
});
test.after(async ({ running, backend }) => {
  await running?.close();
  await backend.close();
});

type Envelope = {
  success: boolean;
  error: { code: string; message: string; category: string; retryable: boolean; details?: { pointer: string; message: string }[] };
};

async function refused(base: string, body: unknown, status: number, code: string): Promise<Envelope["error"]> {
  const response = await post(`${base}/api/v1/tasks`, body);
  assert.is(response.status, status, response.text);
  const envelope = json(response) as Envelope;
  assert.is(envelope.success, false);
  assert.is(envelope.error.code, code, response.text);
  return envelope.error;
}

test("a task input over 256 KiB (MANIFOLD_TASK_MAX_INPUT_BYTES) is 413 PAYLOAD_TOO_LARGE at /input and nothing is stored; one under it is queued", async ({
  base,
  backend,
}) => {
  const before = await backend.depth();
  const big = await refused(base, { type: "work", input: { blob: "x".repeat(300 * 1024) } }, 413, "PAYLOAD_TOO_LARGE");
  assert.equal(
    big.details?.map((d) => d.pointer),
    ["/input"],
  );
  assert.match(big.message, /262144 bytes as JSON \(MANIFOLD_TASK_MAX_INPUT_BYTES\)/);
  assert.is(await backend.depth(), before, "nothing queued");
  const fits = await post(`${base}/api/v1/tasks`, { type: "work", input: { blob: "x".repeat(200 * 1024) } });
  assert.is(fits.status, 202, fits.text);
});

test("MANIFOLD_TASK_MAX_INPUT_BYTES sets the limit; a malformed value stops the agent at start naming it", async () => {
  const backend = createMemoryTaskBackend();
  const small = await serveAgent({ mode: "api", backend, env: { MANIFOLD_TASK_MAX_INPUT_BYTES: "100" } });
  try {
    await refused(small.url, { type: "work", input: { blob: "x".repeat(200) } }, 413, "PAYLOAD_TOO_LARGE");
    assert.is((await post(`${small.url}/api/v1/tasks`, { type: "work", input: { n: 1 } })).status, 202);
  } finally {
    await small.close();
    await backend.close();
  }
  for (const bad of ["lots", "0", "-5"]) {
    try {
      await serveAgent({ mode: "api", backend: createMemoryTaskBackend(), env: { MANIFOLD_TASK_MAX_INPUT_BYTES: bad } });
      assert.unreachable(bad);
    } catch (error) {
      assert.match((error as Error).message, /^MANIFOLD_TASK_MAX_INPUT_BYTES must be an integer of at least 1, not ("lots"|0|-5)$/, bad);
    }
  }
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("POST /api/v1/tasks answers 202 with the id, status and status URL (also as Location); GET shows the queued task", async ({ base, backend }) => {
  const before = Date.now();
  const response = await post(`${base}/api/v1/tasks`, { type: "echo", input: { text: "hi" } });
  const after = Date.now();
  assert.is(response.status, 202, response.text);
  const body = json(response) as { task_id: string; status: string; status_url: string };
  assert.match(body.task_id, UUID);
  assert.equal(body, { task_id: body.task_id, status: "queued", status_url: `/api/v1/tasks/${body.task_id}` });
  assert.is(response.headers["location"], body.status_url);

  const got = await view(base, body.task_id);
  assert.equal(Object.keys(got), ["task_id", "type", "status", "created_at"], "no result, error or start time yet; no internals (input, deliveries)");
  assert.is(got.type, "echo");
  assert.is(got.status, "queued");
  const created = Date.parse(got.created_at);
  assert.ok(created >= before && created <= after, `created_at ${got.created_at} is the submit's time`);
  const stored = await backend.get(body.task_id);
  assert.equal(stored?.input, { text: "hi" });
});

test("timeout: the request's duration, else the task type's, else 30 minutes", async ({ base, backend }) => {
  const given = await submit(base, { type: "work", input: {}, timeout: "90s" });
  assert.is((await backend.get(given))?.timeout_ms, 90_000);
  const typed = await submit(base, { type: "slow_job", input: {} });
  assert.is((await backend.get(typed))?.timeout_ms, 1_000);
  const fallback = await submit(base, { type: "work" });
  assert.is((await backend.get(fallback))?.timeout_ms, 30 * 60_000);
  assert.equal((await backend.get(fallback))?.input, {}, "an absent input is an empty object");
});

test("a body that is not a JSON object: INVALID_JSON (400); not JSON at all: UNSUPPORTED_MEDIA_TYPE (415)", async ({ base }) => {
  await refused(base, "{not json", 400, "INVALID_JSON");
  await refused(base, "[1, 2]", 400, "INVALID_JSON");
  const response = await rawRequest(`${base}/api/v1/tasks`, { method: "POST", headers: { "content-type": "text/plain" }, body: "type=echo" });
  assert.is(response.status, 415);
  assert.is((json(response) as Envelope).error.code, "UNSUPPORTED_MEDIA_TYPE");
});

test("unknown top-level keys, a missing or non-string type, a non-object input: INVALID_INPUT with a pointer each", async ({ base }) => {
  let error = await refused(base, { type: "echo", input: { text: "x" }, priority: 1 }, 400, "INVALID_INPUT");
  assert.equal(error.details, [{ pointer: "/priority", message: "is not an allowed property (type, input, timeout)" }]);
  assert.is(error.category, "input_error");
  assert.is(error.retryable, false);
  error = await refused(base, { input: {} }, 400, "INVALID_INPUT");
  assert.equal(error.details, [{ pointer: "/type", message: "is required" }]);
  error = await refused(base, { type: 7 }, 400, "INVALID_INPUT");
  assert.equal(error.details, [{ pointer: "/type", message: "must be string" }]);
  error = await refused(base, { type: "echo", input: ["text"], task_id: "mine" }, 400, "INVALID_INPUT");
  assert.equal(
    error.details?.map((d) => d.pointer),
    ["/task_id", "/input"],
    "every problem at once",
  );
});

test("an unknown task type is refused at submit (UNKNOWN_TASK_TYPE, 400) and nothing is queued", async ({ base, backend }) => {
  const before = await backend.depth();
  const error = await refused(base, { type: "mine_bitcoin", input: {} }, 400, "UNKNOWN_TASK_TYPE");
  assert.match(error.message, /"mine_bitcoin" is not a task type of errand-agent; known: echo, slow_job, summarise, work/);
  assert.equal(error.details, [{ pointer: "/type", message: "unknown task type" }]);
  assert.is(await backend.depth(), before);
});

test("a timeout that is not a duration, or too long: INVALID_TIMEOUT (400)", async ({ base }) => {
  for (const timeout of ["soon", "10", 90, "-5s", "1.5m", ""]) {
    const error = await refused(base, { type: "work", input: {}, timeout }, 400, "INVALID_TIMEOUT");
    assert.equal(error.details, [{ pointer: "/timeout", message: "is not a duration" }], String(timeout));
  }
  const error = await refused(base, { type: "work", input: {}, timeout: "3h" }, 400, "INVALID_TIMEOUT");
  assert.match(error.message, /at most 120 minutes/);
});

test("input that fails the task type's schema: INVALID_INPUT with pointers under /input (declared fields and a workflow's inputs)", async ({ base }) => {
  let error = await refused(base, { type: "echo", input: { text: 5, times: 1.5, colour: "red" } }, 400, "INVALID_INPUT");
  assert.equal(error.details?.map((d) => d.pointer).sort(), ["/input/colour", "/input/text", "/input/times"]);
  error = await refused(base, { type: "echo", input: {} }, 400, "INVALID_INPUT");
  assert.equal(error.details, [{ pointer: "/input/text", message: "is required" }]);
  error = await refused(base, { type: "summarise", input: { words: 3 } }, 400, "INVALID_INPUT");
  assert.equal(error.details, [{ pointer: "/input/text", message: "is required" }], "a workflow task takes the workflow's inputs");
  await submit(base, { type: "summarise", input: { text: "long text", words: 3 } });
  await submit(base, { type: "work", input: { anything: [1, { nested: true }] } });
});

test("GET and cancel of an unknown or malformed id: NOT_FOUND (404)", async ({ base }) => {
  for (const path of ["0b5c3f38-9d4e-4f7a-8c1e-2a3b4c5d6e7f", "%E0%A4%A", "a%20b", "x/y"]) {
    const got = await rawRequest(`${base}/api/v1/tasks/${path}`);
    assert.is(got.status, 404, path);
    assert.is((json(got) as Envelope).error.code, "NOT_FOUND");
  }
  const cancel = await post(`${base}/api/v1/tasks/0b5c3f38-9d4e-4f7a-8c1e-2a3b4c5d6e7f/cancel`, {});
  assert.is(cancel.status, 404);
  assert.is((json(cancel) as Envelope).error.code, "NOT_FOUND");
});

test("wrong methods answer 405 with Allow; OPTIONS answers the preflight", async ({ base }) => {
  const id = await submit(base, { type: "work", input: {} });
  const postToTask = await post(`${base}/api/v1/tasks/${id}`, {});
  assert.is(postToTask.status, 405);
  assert.is(postToTask.headers["allow"], "GET, HEAD, OPTIONS");
  const getCancel = await rawRequest(`${base}/api/v1/tasks/${id}/cancel`);
  assert.is(getCancel.status, 405);
  assert.is(getCancel.headers["allow"], "POST, OPTIONS");
  const list = await rawRequest(`${base}/api/v1/tasks`);
  assert.is(list.status, 405, "no listing");
  const preflight = await rawRequest(`${base}/api/v1/tasks/${id}`, { method: "OPTIONS" });
  assert.is(preflight.status, 204);
  const head = await rawRequest(`${base}/api/v1/tasks/${id}`, { method: "HEAD" });
  assert.is(head.status, 200);
});

test("cancel a queued task: 200 with the cancelled view (TASK_CANCELLED); again: TASK_NOT_CANCELLABLE (409)", async ({ base, backend }) => {
  const id = await submit(base, { type: "work", input: {} });
  const response = await post(`${base}/api/v1/tasks/${id}/cancel`, {});
  assert.is(response.status, 200, response.text);
  const cancelled = json(response) as { status: string; error?: { code: string }; completed_at?: string };
  assert.is(cancelled.status, "cancelled");
  assert.is(cancelled.error?.code, "TASK_CANCELLED");
  assert.ok(cancelled.completed_at);
  assert.equal(await view(base, id), cancelled, "GET shows the same");
  const again = await post(`${base}/api/v1/tasks/${id}/cancel`, {});
  assert.is(again.status, 409);
  assert.is((json(again) as Envelope).error.code, "TASK_NOT_CANCELLABLE");
  assert.equal(
    await backend.dequeue({ count: 1_000, leaseMs: 1_000, blockMs: 0 }).then((leases) => leases.filter((l) => l.task.task_id === id)),
    [],
    "never delivered",
  );
});

test("the submitter's traceparent is stored with the task when the API has no telemetry of its own", async ({ base, backend }) => {
  const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  const response = await post(`${base}/api/v1/tasks`, { type: "work", input: {} }, { traceparent, tracestate: "vendor=1" });
  const id = (json(response) as { task_id: string }).task_id;
  assert.equal((await backend.get(id))?.trace, { traceparent, tracestate: "vendor=1" });
  const bad = await post(`${base}/api/v1/tasks`, { type: "work", input: {} }, { traceparent: "garbage" });
  assert.is((await backend.get((json(bad) as { task_id: string }).task_id))?.trace, undefined, "an invalid header is not stored");
});

test("a body over the component's limit: PAYLOAD_TOO_LARGE (413)", async ({ base }) => {
  await refused(base, { type: "work", input: { blob: "x".repeat(1_100_000) } }, 413, "PAYLOAD_TOO_LARGE");
});

test.run();
