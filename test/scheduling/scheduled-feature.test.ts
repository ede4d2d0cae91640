/**
 * `scheduled: true` on an agent serves `POST /api/v1/scheduled`, answered by its typed `scheduled`
 * handler; without one natural mode answers the instruction, and without a language model it is 503
 * LLM_UNAVAILABLE naming the variables to set. A handler may skip a run (200 `status: filtered`); a
 * failing one is 500 ORCHESTRATOR_ERROR (category service_error), which the executor retries; before
 * the agent has started the route answers 503.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { defineAgent } from "../../runtime/codegen/v1/index.js";
import { serveComponent } from "../../runtime/component/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createScheduledExtension } from "../../runtime/scheduling/index.js";
import { emitOpenApi } from "../../generator/emit/json-files.js";
import { loadManifestText } from "../support/manifests.js";
import { startScriptedLlm } from "../support/scripted-llm.js";
import { agent as agentManifest, agentSpec } from "../support/specs.js";

const SPEC = agentSpec(agentManifest("clock-agent", { description: "Answers scheduled runs", capabilities: {}, more: { scheduled: true } }));
const ClockAgent = defineAgent<{}, {}>(SPEC, {});
const quiet = { port: 0, registry: false, handleSignals: false, log: () => {}, handlers: {} } as const;

const REQUEST = { schedule_id: "sch-0a1b", task_id: "sch-0a1b:1767225600", instruction: "say the time", input: { zone: "UTC" } };

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${url}/api/v1/scheduled`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

const seen: unknown[] = [];
const agent = await ClockAgent.serve({
  ...quiet,
  scheduled: async (request, { requestId, signal }) => {
    seen.push({ request, requestId, aborted: signal.aborted });
    // A retryable cause (a downstream outage): a non-retryable one keeps its code (test/trust/gate-gaps-scheduled.test.ts).
    if (request.instruction === "refuse") throw new ManifoldError("NETWORK_ERROR", "not now");
    if (request.instruction === "crash") throw new Error("secret internals at /srv/app.ts:12");
    if (request.instruction === "skip") return { filtered: true, reason: "quiet hours" };
    return `${request.instruction} (${String(request.input["zone"])})`;
  },
});
test.after(() => agent.close());

test("a valid request runs the handler and answers {success, data: {response, request_id}} with the request id echoed", async () => {
  const { status, body, headers } = await post(agent.url, REQUEST, { "X-Manifold-Request-ID": "req-42" });
  assert.is(status, 200);
  assert.equal(body, { success: true, data: { response: "say the time (UTC)", request_id: "req-42" } });
  assert.is(headers.get("x-manifold-request-id"), "req-42");
  assert.equal(seen.at(-1), { request: REQUEST, requestId: "req-42", aborted: false });
});

test("a body that is not a ScheduledRequest is 400 INVALID_INPUT with a pointer per violation; the handler is not called", async () => {
  const before = seen.length;
  const { status, body } = await post(agent.url, { schedule_id: 7, instruction: "x", input: {}, extra: true });
  assert.is(status, 400);
  assert.is(body.error.code, "INVALID_INPUT");
  assert.equal((body.error.details as { pointer: string }[]).map((d) => d.pointer).sort(), ["/extra", "/schedule_id", "/task_id"]);
  assert.is(seen.length, before);
});

test("a failing handler is 500 ORCHESTRATOR_ERROR, category service_error, retryable; a thrown Error's text stays in the log", async () => {
  const refused = await post(agent.url, { ...REQUEST, instruction: "refuse" });
  assert.is(refused.status, 500);
  assert.equal(refused.body, {
    success: false,
    error: { code: "ORCHESTRATOR_ERROR", message: "scheduled run failed (NETWORK_ERROR: not now)", category: "service_error", retryable: true },
  });
  const crashed = await post(agent.url, { ...REQUEST, instruction: "crash" });
  assert.equal(
    [crashed.status, crashed.body.error.code, crashed.body.error.message],
    [500, "ORCHESTRATOR_ERROR", "scheduled run failed (the scheduled handler failed)"],
  );
  assert.not.match(JSON.stringify(crashed.body), /secret|srv/);
});

test("a run the handler skips is HTTP 200 with status: filtered and its reason", async () => {
  const { status, body } = await post(agent.url, { ...REQUEST, instruction: "skip" }, { "X-Manifold-Request-ID": "req-skip" });
  assert.is(status, 200);
  assert.equal(body, { success: true, status: "filtered", data: { response: "", request_id: "req-skip", reason: "quiet hours" } });
});

test("a synchronous handler is answered the same way: its string, its skip, its throw, and a return of the wrong type", async () => {
  const sync = await ClockAgent.serve({
    ...quiet,
    scheduled: (request) => {
      if (request.instruction === "crash") throw new Error("secret internals");
      if (request.instruction === "skip") return { filtered: true, reason: "quiet hours" };
      if (request.instruction === "number") return 42 as unknown as string;
      return `now: ${request.instruction}`;
    },
  });
  try {
    const ran = await post(sync.url, REQUEST, { "X-Manifold-Request-ID": "req-sync" });
    assert.equal([ran.status, ran.body], [200, { success: true, data: { response: "now: say the time", request_id: "req-sync" } }]);
    const skipped = await post(sync.url, { ...REQUEST, instruction: "skip" }, { "X-Manifold-Request-ID": "req-skip" });
    assert.equal(skipped.body, { success: true, status: "filtered", data: { response: "", request_id: "req-skip", reason: "quiet hours" } });
    for (const instruction of ["crash", "number"]) {
      const failed = await post(sync.url, { ...REQUEST, instruction });
      assert.equal(
        [failed.status, failed.body.error.code, failed.body.error.message],
        [500, "ORCHESTRATOR_ERROR", "scheduled run failed (the scheduled handler failed)"],
      );
      assert.not.match(JSON.stringify(failed.body), /secret/);
    }
  } finally {
    await sync.close();
  }
});

test("503 UNAVAILABLE until the agent has started", async () => {
  let early: number | undefined;
  const gate = {
    name: "gate",
    // Starts run in order: this one runs while the scheduled extension is not started yet.
    start: async ({ url }: { url: string }) => {
      early = (await post(url, REQUEST)).status;
    },
  };
  const running = await serveComponent(SPEC, { ...quiet, extensions: [gate, createScheduledExtension({ handler: () => "on time" })] });
  try {
    assert.is(early, 503);
    assert.is((await post(running.url, REQUEST)).status, 200);
  } finally {
    await running.close();
  }
});

test("GET is 405 with Allow: POST, OPTIONS; the OpenAPI document lists the path", async () => {
  const wrong = await fetch(`${agent.url}/api/v1/scheduled`);
  assert.is(wrong.status, 405);
  assert.is(wrong.headers.get("allow"), "POST, OPTIONS");
  await wrong.body?.cancel();
  const withDoc = await ClockAgent.serve({ ...quiet, enableOpenApi: true, scheduled: () => "ok" });
  try {
    const doc = (await (await fetch(`${withDoc.url}/openapi.json`)).json()) as { paths: Record<string, { post?: { operationId: string } }> };
    assert.is(doc.paths["/api/v1/scheduled"]?.post?.operationId, "runScheduled");
  } finally {
    await withDoc.close();
  }
});

test("without a handler: natural mode answers the instruction with its synthesis", async () => {
  const llm = await startScriptedLlm();
  const bare = await ClockAgent.serve({ ...quiet, llm: { baseUrl: llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 } });
  try {
    llm.reply({ text: '{"steps": []}' }, { text: "It is noon in UTC." });
    const { status, body } = await post(bare.url, REQUEST, { "X-Manifold-Request-ID": "req-sched-1" });
    assert.is(status, 200, JSON.stringify(body));
    assert.equal(body, { success: true, data: { response: "It is noon in UTC.", request_id: "req-sched-1" } });
    assert.match(llm.requests[0]!.body.messages.at(-1).content, /^say the time\n\nInput: \{"zone":"UTC"\}$/);
  } finally {
    await bare.close();
    await llm.close();
  }
});

test("without a handler: an instruction the model cannot act on without asking fails 400 INVALID_INPUT with the question (nobody is there to answer it)", async () => {
  const llm = await startScriptedLlm();
  const bare = await ClockAgent.serve({ ...quiet, llm: { baseUrl: llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 } });
  try {
    llm.reply({ text: '{"steps": [], "clarification": {"question": "Which time zone?", "missing_fields": ["zone"]}}' });
    const { status, body } = await post(bare.url, REQUEST);
    assert.is(status, 400, JSON.stringify(body));
    assert.is(body.error.code, "INVALID_INPUT");
    assert.match(body.error.message, /needs more input \(zone\): Which time zone\?/);
    assert.is(llm.requests.length, 1, "no synthesis of a question");
  } finally {
    await bare.close();
    await llm.close();
  }
});

test("without a handler or a language model: 503 LLM_UNAVAILABLE whose message names the variables to set", async () => {
  const bare = await ClockAgent.serve({ ...quiet, llm: false });
  try {
    const { status, body } = await post(bare.url, REQUEST);
    assert.is(status, 503);
    assert.is(body.error.code, "LLM_UNAVAILABLE");
    assert.match(body.error.message, /MANIFOLD_LLM_BASE_URL/);
    assert.match(body.error.message, /serve\(\{ scheduled \}\)/);
  } finally {
    await bare.close();
  }
});

test("an agent without scheduled: true has no such route", async () => {
  const { scheduled: _, ...withoutScheduled } = SPEC.agent!;
  const plain = defineAgent<{}, {}>({ ...SPEC, agent: withoutScheduled }, {});
  const running = await plain.serve({ ...quiet, scheduled: () => "never" });
  try {
    assert.is((await post(running.url, REQUEST)).status, 404);
  } finally {
    await running.close();
  }
});

test("gen: `scheduled: true` in a manifest reaches the spec and the emitted OpenAPI document; without it neither has it", () => {
  const manifest = (extra: string) => `kind: agent\nname: clock-agent\ndescription: Answers scheduled runs\ncapabilities: []\n${extra}`;
  const on = loadManifestText("m/clock.yaml", manifest("scheduled: true\n"));
  assert.equal(on.diagnostics, []);
  const spec = on.manifests[0]!.component!;
  assert.is(spec.agent?.scheduled, true);
  assert.ok(JSON.parse(emitOpenApi(spec)).paths["/api/v1/scheduled"]);
  const off = loadManifestText("m/clock.yaml", manifest("")).manifests[0]!.component!;
  assert.is(off.agent?.scheduled, undefined);
  assert.is(JSON.parse(emitOpenApi(off)).paths["/api/v1/scheduled"], undefined);
});

test.run();
