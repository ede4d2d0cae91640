/**
 * The dashboard's view endpoints and the HITL command proxy over HTTP, reading a real Redis that the
 * test fills through the runtime's own stores: checkpoints and their button rules, the command
 * proxied to the owning agent (a recording agent on loopback) with the resume after an approve,
 * LLM debug and execution records (previews, filters, disabled stores), chat sessions, skills.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createSessionStore } from "../../runtime/chat/index.js";
import { serveDashboard, type RunningDashboard } from "../../runtime/dashboard/index.js";
import { createRegistry, type Registry } from "../../runtime/discovery/index.js";
import { createCheckpointStore, type CheckpointStore } from "../../runtime/hitl/index.js";
import { createLlmDebugStore } from "../../runtime/llm/index.js";
import { createExecutionStore } from "../../runtime/orchestration/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { eventually } from "../support/wait.js";
import { capability, checkpoint, get, post, registration } from "./support.js";

let redis: RedisServer;
let store: Store;
let registry: Registry;
let checkpoints: CheckpointStore;
let dashboard: RunningDashboard;
let agent: { server: Server; port: number; calls: { path: string; body: any }[] };
const quiet = (): void => undefined;
let env: Record<string, string>;

/** An agent's /hitl routes that record what reaches them and answer as an agent would. */
function startRecordingAgent(): Promise<typeof agent> {
  const calls: { path: string; body: any }[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (part: Buffer) => (text += part.toString("utf8")));
    req.on("end", () => {
      const body = text === "" ? {} : JSON.parse(text);
      calls.push({ path: req.url ?? "", body });
      res.setHeader("content-type", "application/json");
      if (req.url === "/hitl/command") res.end(JSON.stringify({ success: true, checkpoint: { checkpoint_id: body.checkpoint_id, status: `${body.action}d` } }));
      else res.end(JSON.stringify({ request_id: "resumed-1", steps: [{ step_id: "charge", success: true }] }));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port, calls })));
}

test.before(async () => {
  redis = await startRedisServer();
  env = {
    REDIS_URL: redis.url,
    MANIFOLD_REDIS_NAMESPACE: "viewer",
    MANIFOLD_LLM_DEBUG_ENABLED: "true",
    MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED: "true",
    MANIFOLD_VIEWER_MEMORY_DOMAINS: "viewer-agent,other-team",
  };
  store = createStore({ env });
  registry = createRegistry({ store, cache: false });
  checkpoints = createCheckpointStore({ store });
  agent = await startRecordingAgent();
  await registry.register(registration({ name: "fake-agent", type: "agent", port: agent.port }));
  dashboard = await serveDashboard({ port: 0, handleSignals: false, log: quiet, env, bodyLimit: 4096 });
});

test.after(async () => {
  await dashboard?.close();
  agent?.server.close();
  await checkpoints?.close();
  await registry?.close();
  await store?.close();
  await redis?.close();
});

test("checkpoints are listed with the spec's button rule: only non_streaming ones, per agent when scoped", async () => {
  const plain = await checkpoints.create(checkpoint());
  const streaming = await checkpoints.create(checkpoint({ request_mode: "streaming" }));
  const plan = await checkpoints.create(checkpoint({ agent_name: "other-agent", type: "plan" }));
  const listed = await get(`${dashboard.url}/api/hitl/checkpoints`);
  assert.is(listed.status, 200);
  assert.is(listed.headers.get("access-control-allow-origin"), null, "debug data is for the dashboard's own pages");
  const byId = new Map<string, any>(listed.body.checkpoints.map((c: any) => [c.checkpoint_id, c]));
  assert.equal(byId.get(plain.checkpoint_id).actions, { enabled: true, agent: "fake-agent" });
  assert.equal(byId.get(plain.checkpoint_id).completed_steps, ["quote"], "completed steps without their outputs");
  assert.is(byId.get(streaming.checkpoint_id).actions.enabled, false);
  assert.match(byId.get(streaming.checkpoint_id).actions.reason, /streaming/);
  assert.equal(byId.get(plan.checkpoint_id).actions, { enabled: true, agent: "other-agent" });
  const plans = (await get(`${dashboard.url}/api/hitl/checkpoints?type=plan`)).body.checkpoints;
  assert.equal(
    plans.map((c: any) => c.checkpoint_id),
    [plan.checkpoint_id],
  );
  assert.is((await get(`${dashboard.url}/api/hitl/checkpoints?type=robot`)).status, 400);
  assert.is((await get(`${dashboard.url}/api/hitl/checkpoints?limit=1000`)).status, 400);

  // MANIFOLD_AGENT_NAME scopes the view (and its buttons) to one agent; agent=all still lists every one.
  const scoped = await serveDashboard({ port: 0, handleSignals: false, log: quiet, env: { ...env, MANIFOLD_AGENT_NAME: "fake-agent" } });
  try {
    const mine = (await get(`${scoped.url}/api/hitl/checkpoints`)).body.checkpoints;
    assert.ok(
      mine.every((c: any) => c.agent_name === "fake-agent"),
      "only fake-agent's",
    );
    const every = (await get(`${scoped.url}/api/hitl/checkpoints?agent=all&type=plan`)).body.checkpoints;
    assert.is(every[0].checkpoint_id, plan.checkpoint_id);
    assert.is(every[0].actions.enabled, false);
    assert.match(every[0].actions.reason, /fake-agent's checkpoints only/);
  } finally {
    await scoped.close();
  }
});

test("approve is proxied to the owning agent found through discovery, then the run is resumed; reject is not resumed", async () => {
  const approved = await checkpoints.create(checkpoint());
  agent.calls.length = 0;
  const reply = await post(
    `${dashboard.url}/api/hitl/command`,
    { checkpoint_id: approved.checkpoint_id, action: "approve", reason: "looks right" },
    { origin: dashboard.url },
  );
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(agent.calls, [
    { path: "/hitl/command", body: { checkpoint_id: approved.checkpoint_id, action: "approve", reason: "looks right" } },
    { path: `/hitl/resume/${approved.checkpoint_id}`, body: {} },
  ]);
  assert.equal(reply.body, {
    success: true,
    checkpoint: { checkpoint_id: approved.checkpoint_id, status: "approved" },
    resumed: { request_id: "resumed-1", steps: [{ step_id: "charge", success: true }] },
  });

  const rejected = await checkpoints.create(checkpoint());
  agent.calls.length = 0;
  const refused = await post(`${dashboard.url}/api/hitl/command`, { checkpoint_id: rejected.checkpoint_id, action: "reject" });
  assert.is(refused.status, 200);
  assert.equal(
    agent.calls.map((c) => c.path),
    ["/hitl/command"],
  );
});

test("the command proxy refuses what the buttons would not offer, bad bodies, other origins and unknown agents", async () => {
  const streaming = await checkpoints.create(checkpoint({ request_mode: "streaming" }));
  agent.calls.length = 0;
  const conflict = await post(`${dashboard.url}/api/hitl/command`, { checkpoint_id: streaming.checkpoint_id, action: "approve" });
  assert.is(conflict.status, 409);
  assert.is(conflict.body.error.code, "CONFLICT");
  assert.match(conflict.body.error.message, /streaming/);
  assert.is(agent.calls.length, 0, "nothing reached the agent");

  const cross = await post(
    `${dashboard.url}/api/hitl/command`,
    { checkpoint_id: streaming.checkpoint_id, action: "approve" },
    { origin: "http://evil.example" },
  );
  assert.is(cross.status, 403);
  assert.is(cross.body.error.code, "FORBIDDEN");
  // A browser that marks the request cross-site without an Origin (an old or privacy-hardened one) is refused the same way.
  const site = await post(
    `${dashboard.url}/api/hitl/command`,
    { checkpoint_id: streaming.checkpoint_id, action: "approve" },
    { "sec-fetch-site": "cross-site" },
  );
  assert.equal([site.status, site.body.error.code], [403, "FORBIDDEN"]);
  assert.is(agent.calls.length, 0, "no refused command reached the agent");
  const invalid = await post(`${dashboard.url}/api/hitl/command`, { checkpoint_id: 7, action: "maybe", extra: true });
  assert.is(invalid.status, 400);
  assert.equal(
    invalid.body.error.details.map((d: { pointer: string }) => d.pointer),
    ["/checkpoint_id", "/action", "/extra"],
  );
  const unknown = await post(`${dashboard.url}/api/hitl/command`, { checkpoint_id: "cp-0123456789abcdef0123456789abcdef", action: "approve" });
  assert.is(unknown.status, 404);
  const large = await post(`${dashboard.url}/api/hitl/command`, { checkpoint_id: "cp-x", action: "approve", reason: "x".repeat(5000) });
  assert.is(large.status, 413, "the component's body limit applies");

  const orphan = await checkpoints.create(checkpoint({ agent_name: "gone-agent" }));
  const gone = await post(`${dashboard.url}/api/hitl/command`, { checkpoint_id: orphan.checkpoint_id, action: "approve" });
  assert.is(gone.status, 503);
  assert.match(gone.body.error.message, /gone-agent is not registered/);
  assert.not.match(JSON.stringify(gone.body), /\.ts:\d+/, "no stack trace");
});

test("LLM debug records: previews in the list, the whole record on its own, status filter", async () => {
  const llm = createLlmDebugStore({ store, env });
  const interaction = (success: boolean, prompt: string) => ({
    type: "plan_generation",
    category: "llm" as const,
    started_at: new Date().toISOString(),
    duration_ms: 12.5,
    prompt_tokens: 100,
    completion_tokens: 20,
    total_tokens: 120,
    model: "scripted",
    attempt: 1,
    success,
    prompt,
    response: success ? '{"steps":[]}' : "",
    ...(success ? {} : { error: { code: "LLM_ERROR", message: "provider answered 500" } }),
  });
  await llm.record({ request_id: "req-ok", source_component: "travel-agent", interaction: interaction(true, "p".repeat(5000)) });
  await llm.record({ request_id: "req-ok", source_component: "travel-agent", interaction: { ...interaction(true, "synthesise"), type: "synthesis" } });
  await llm.record({ request_id: "req-bad", original_request_id: "req-ok", source_component: "travel-agent", interaction: interaction(false, "again") });
  const all = (await get(`${dashboard.url}/api/llm-debug`)).body;
  assert.is(all.enabled, true);
  const ok = all.records.find((r: any) => r.request_id === "req-ok");
  assert.is(ok.interaction_count, 2);
  assert.is(ok.total_tokens, 240);
  assert.is(ok.interactions[0].prompt.length, 1024, "a preview in the list");
  assert.is(ok.interactions[0].preview_cut, true);
  const errors = (await get(`${dashboard.url}/api/llm-debug?status=error`)).body.records;
  assert.equal(
    errors.map((r: any) => [r.request_id, r.original_request_id]),
    [["req-bad", "req-ok"]],
  );
  const whole = (await get(`${dashboard.url}/api/llm-debug/req-ok`)).body;
  assert.is(whole.interactions[0].prompt.length, 5000);
  assert.is((await get(`${dashboard.url}/api/llm-debug/no-such-request`)).status, 404);
  await llm.close();
});

test("execution records as graphs: every plan step with its status and duration, the blocked one waiting", async () => {
  const executions = createExecutionStore({ store, env });
  const paused = await checkpoints.create(checkpoint());
  const started = new Date(Date.now() - 80).toISOString();
  await executions.save({
    plan_id: paused.plan.plan_id,
    mode: "workflow",
    status: "interrupted",
    plan: paused.plan,
    steps: [
      {
        step_id: "quote",
        component: "pay-tool",
        capability: "quote",
        status: "completed",
        output: { big: "x".repeat(2000) },
        attempts: 1,
        duration_ms: 31,
        started_at: started,
      },
    ],
    hooks: [],
    started_at: started,
    finished_at: new Date().toISOString(),
  });
  await executions.save({
    plan_id: "workflow-1",
    mode: "workflow",
    workflow: "travel-research",
    status: "failed",
    steps: [],
    hooks: [],
    error: { code: "HOOK_FAILED", message: "a required hook refused" },
    started_at: new Date(Date.now() - 1000).toISOString(),
    finished_at: new Date(Date.now() - 990).toISOString(),
  });
  const listed = (await get(`${dashboard.url}/api/executions`)).body;
  assert.is(listed.enabled, true);
  const graph = listed.executions.find((e: any) => e.plan_id === paused.plan.plan_id);
  assert.equal(
    graph.nodes.map((n: any) => [n.step_id, n.status, n.duration_ms, n.depends_on]),
    [
      ["quote", "completed", 31, []],
      ["charge", "waiting_approval", undefined, ["quote"]],
    ],
  );
  assert.is(graph.conversation_id, "conv-1", "the conversation its checkpoint recorded");
  assert.is(graph.checkpoint_id, paused.checkpoint_id);
  assert.not.match(JSON.stringify(listed), /xxxxxxxx/, "step outputs stay out of the list");
  const failed = (await get(`${dashboard.url}/api/executions?status=failed`)).body.executions;
  assert.equal(
    failed.map((e: any) => e.plan_id),
    ["workflow-1"],
  );
  assert.is((await get(`${dashboard.url}/api/executions/${paused.plan.plan_id}`)).body.steps[0].output.big.length, 2000);
  await executions.close();
});

test("memory: chat sessions of the dashboard's own namespace per user, and their messages", async () => {
  const sessions = createSessionStore({ store });
  const id = "0b8c5b6e-3f0a-4b7e-9d51-2a8f3c1e7d90";
  await sessions.create({ id, userId: "ada@example.com", metadata: {}, now: Date.now() });
  await sessions.append(id, { id: "m1", role: "user", content: "What is it like in Kyoto?", timestamp: new Date().toISOString(), metadata: {} });
  const users = (await get(`${dashboard.url}/api/memory/users`)).body;
  assert.ok(users.users.includes("ada@example.com"), JSON.stringify(users));
  const listed = (await get(`${dashboard.url}/api/memory/sessions?user=ada@example.com`)).body;
  assert.equal(
    listed.sessions.map((s: any) => [s.id, s.title, s.message_count]),
    [[id, "What is it like in Kyoto?", 1]],
  );
  const one = (await get(`${dashboard.url}/api/memory/sessions/${id}`)).body;
  assert.equal(
    one.session.messages.map((m: any) => m.content),
    ["What is it like in Kyoto?"],
  );
  assert.equal((await get(`${dashboard.url}/api/memory/domains`)).body, { domains: ["viewer-agent", "other-team"], source: "configured" });
  assert.is((await get(`${dashboard.url}/api/memory/episodes?domain=nobody`)).status, 404);
  assert.is((await get(`${dashboard.url}/api/memory/sessions?user=${encodeURIComponent("no\ncontrol")}`)).status, 400);
  assert.is((await get(`${dashboard.url}/api/memory/sessions/not-a-session`)).status, 404);
  await sessions.close();
});

test("skills: each agent's catalog as its planner reads it, internal capabilities marked", async () => {
  const tool = registration({ name: "ledger-tool", capabilities: [capability("post_entry"), capability("rebuild_index", { internal: true })] });
  await registry.register(tool);
  let agents: any[] = [];
  await eventually("the ledger tool in the catalog", async () => {
    agents = (await get(`${dashboard.url}/api/skills`)).body.agents;
    return agents.some((a) => a.components.some((c: any) => c.name === "ledger-tool"));
  });
  const fake = agents.find((a) => a.agent === "fake-agent");
  const ledger = fake.components.find((c: any) => c.name === "ledger-tool");
  assert.equal(
    ledger.capabilities.map((c: any) => [c.name, c.internal, c.planner_visible]),
    [
      ["post_entry", false, true],
      ["rebuild_index", true, false],
    ],
  );
  assert.is(fake.components.find((c: any) => c.name === "fake-agent").self, true);
  assert.not.match(JSON.stringify(agents), /output_summary/);
  await registry.unregister(tool.id);
});

test("with the debug stores off the views say so, and how to turn them on", async () => {
  const off = await serveDashboard({ port: 0, handleSignals: false, log: quiet, env: { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: "viewer" } });
  try {
    const llm = (await get(`${off.url}/api/llm-debug`)).body;
    assert.equal(llm, {
      enabled: false,
      message: "LLM debug capture is off: set MANIFOLD_LLM_DEBUG_ENABLED=true (on the agents and on the dashboard)",
      records: [],
    });
    const executions = (await get(`${off.url}/api/executions`)).body;
    assert.is(executions.enabled, false);
    assert.match(executions.message, /MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED=true/);
    const config = (await get(`${off.url}/api/config`)).body;
    assert.equal(config.stores.llm_debug.enabled, false);
    assert.is(config.store, "redis");
    assert.is(config.registry.signed, false, "no MANIFOLD_REGISTRY_KEY: the API says the registry is unsigned");
    assert.match(config.registry.message, /^registry is unsigned: .*MANIFOLD_REGISTRY_KEY/);
    assert.not.match(JSON.stringify(config), /redis:\/\//, "no store address (or password) in an answer");
  } finally {
    await off.close();
  }
});

test("with the store unreachable the views answer 503 UNAVAILABLE (the bounded availability check, not a timed-out command's 500), and nothing of the failure's internals", async () => {
  const dark = await serveDashboard({
    port: 0,
    handleSignals: false,
    log: quiet,
    env: { REDIS_URL: "redis://127.0.0.1:1", MANIFOLD_LLM_DEBUG_ENABLED: "true", MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED: "true" },
  });
  try {
    for (const path of ["/api/services", "/api/llm-debug", "/api/executions", "/api/hitl/checkpoints", "/api/memory/users", "/api/skills"]) {
      const reply = await get(`${dark.url}${path}`);
      assert.is(reply.status, 503, path);
      assert.is(reply.body.error.code, "UNAVAILABLE", path);
      assert.not.match(JSON.stringify(reply.body), /ECONNREFUSED|127\.0\.0\.1:1|\.ts:\d+/, path);
    }
    assert.is((await get(`${dark.url}/api/config`)).status, 200, "the page itself still loads");
  } finally {
    await dark.close();
  }
});

test.run();
