/**
 * Issue 32 M4, end to end: a forged registry record cannot capture the dashboard's commands. A real
 * travel agent (HITL on) and currency service run as processes on a real Redis with the network key;
 * a neighbour writes, straight into the same registry, a record named `travel-agent` (and one for a
 * `ghost-agent`) pointing at its own HTTP server on loopback, which records everything it receives.
 * The dashboard (serveDashboard, with the key and a bearer token for its outbound calls) approves
 * the agent's checkpoint: the approval reaches the real agent and resumes the run, the neighbour
 * receives nothing (no command, no token, no OpenAPI fetch), the dashboard marks each record verified
 * or not, and a checkpoint whose agent has only a forged record is refused with a clear 409.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveDashboard, type RunningDashboard } from "../../runtime/dashboard/index.js";
import { createRegistry, type Registry } from "../../runtime/discovery/index.js";
import { createCheckpointStore, type CheckpointStore } from "../../runtime/hitl/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { checkpoint, get, post } from "../dashboard/support.js";
import { startProcess, stopAll, type Started } from "../support/processes.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { eventually } from "../support/wait.js";

const KEY = "4b1d2c3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e";
const DASHBOARD_TOKEN = "dashboard-bearer-token-3f9a1c";

let redis: RedisServer;
let store: Store;
let raw: Registry;
let checkpoints: CheckpointStore;
let dashboard: RunningDashboard;
let agentUrl: string;
let attacker: { server: Server; port: number; received: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[] };

/** The neighbour's server: answers like an agent would and records every request. */
function startAttacker(): Promise<typeof attacker> {
  const received: (typeof attacker)["received"] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (part: Buffer) => (body += part.toString("utf8")));
    req.on("end", () => {
      received.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      res.setHeader("content-type", "application/json");
      if (req.url === "/openapi.json") res.end(JSON.stringify({ openapi: "3.1.0", info: { title: "forged", version: "1" }, paths: {} }));
      else res.end(JSON.stringify({ success: true, checkpoint: { status: "approved" } }));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port, received })));
}

function travel(name: string, env: Record<string, string>): Promise<Started> {
  return startProcess({
    name,
    entry: "test/dashboard/fixtures/travel.ts",
    args: [name],
    env: { ...env, PORT: "0", HOST: "127.0.0.1" },
    ready: { line: /"event":"listening","url":"([^"]+)"/ },
  });
}

test.before(async () => {
  redis = await startRedisServer();
  const env = {
    REDIS_URL: redis.url,
    MANIFOLD_REGISTRY_KEY: KEY,
    MANIFOLD_HITL_ENABLED: "true",
    MANIFOLD_ENABLE_OPENAPI: "true",
    DEV_MODE: "false",
    OPENAI_API_KEY: "",
  };
  const [, agent] = await Promise.all([travel("currency-service", env), travel("travel-agent", env)]);
  agentUrl = agent.url!;
  attacker = await startAttacker();
  store = createStore({ env: { REDIS_URL: redis.url } });
  raw = createRegistry({ store, cache: false, key: false });
  checkpoints = createCheckpointStore({ store });
  const real = await eventually("the agent's signed record", async () => (await raw.byName("travel-agent"))[0]);
  // The forgery copies the real record (capabilities and all), sorts first by id, and says it serves OpenAPI.
  const { health: _h, reported_health: _r, last_seen: _l, ttl_ms: _t, heartbeat_ms: _b, signature: _s, signed_at: _a, ...copy } = real;
  const forged = { ...copy, address: "127.0.0.1", port: attacker.port, metadata: { ...copy.metadata, openapi: "true" }, health: "healthy" as const };
  await raw.register({ ...forged, id: "travel-agent-00000000" });
  await raw.register({ ...forged, id: "ghost-agent-00000000", name: "ghost-agent" });
  dashboard = await serveDashboard({
    port: 0,
    handleSignals: false,
    log: () => undefined,
    env: { REDIS_URL: redis.url, MANIFOLD_REGISTRY_KEY: KEY, MANIFOLD_OAUTH_TOKEN: DASHBOARD_TOKEN },
  });
});

test.after(async () => {
  await dashboard?.close();
  attacker?.server.close();
  await checkpoints?.close();
  await raw?.close();
  await store?.close();
  await stopAll();
  await redis?.close();
});

test("the dashboard marks each record verified or not, and says the registry is signed", async () => {
  const services = await eventually("both travel-agent records listed", async () => {
    const reply = await get(`${dashboard.url}/api/services`);
    return reply.body.filter((s: any) => s.name === "travel-agent").length === 2 ? reply.body : undefined;
  });
  const byId = Object.fromEntries(services.map((s: any) => [s.id, s.verification]));
  assert.is(byId["travel-agent-00000000"], "unsigned");
  assert.is(byId["ghost-agent-00000000"], "unsigned");
  const genuine = services.find((s: any) => s.name === "travel-agent" && s.id !== "travel-agent-00000000");
  assert.is(genuine.verification, "verified");
  assert.not.ok("signature" in genuine, "the signature is not shown");
  const config = await get(`${dashboard.url}/api/config`);
  assert.equal(config.body.registry, { signed: true });
});

test("approving from the dashboard reaches the real agent; the forged record receives nothing", async () => {
  const paused = await post(`${agentUrl}/orchestrate/custom`, {
    steps: [{ tool: "currency-service", capability: "convert_currency", params: { amount: 100, from: "EUR", to: "JPY" } }],
  });
  assert.is(paused.status, 202, JSON.stringify(paused.body));
  const id: string = paused.body.checkpoint_id;
  const approved = await post(`${dashboard.url}/api/hitl/command`, { checkpoint_id: id, action: "approve", reason: "checked" });
  assert.is(approved.status, 200, JSON.stringify(approved.body));
  assert.is(approved.body.resume_error, undefined, JSON.stringify(approved.body));
  const stored = await get(`${agentUrl}/hitl/checkpoints/${id}`);
  assert.is(stored.body.status, "resumed", "the real agent resumed its checkpoint");
  assert.equal(attacker.received, [], "the neighbour received no command, resume or token");
});

test("a checkpoint whose agent has only a forged record is refused with a 409 that says why", async () => {
  const ghost = await checkpoints.create(checkpoint({ agent_name: "ghost-agent" }));
  const refused = await post(`${dashboard.url}/api/hitl/command`, { checkpoint_id: ghost.checkpoint_id, action: "approve" });
  assert.is(refused.status, 409, JSON.stringify(refused.body));
  assert.match(refused.body.error.message, /ghost-agent has no verified registration/);
  assert.match(refused.body.error.message, /1 ignored \(unsigned\)/);
  assert.is((await checkpoints.get(ghost.checkpoint_id))?.status, "pending");
  assert.equal(attacker.received, []);
});

test("OpenAPI documents are fetched only from verified records", async () => {
  const urls = await get(`${dashboard.url}/swagger-urls.json`);
  assert.equal(
    urls.body.map((u: any) => u.name),
    ["currency-service", "travel-agent"],
  );
  const document = await get(`${dashboard.url}/api/openapi/travel-agent`);
  assert.is(document.status, 200);
  assert.match(document.body.info.title, /travel-agent/);
  const ghost = await get(`${dashboard.url}/api/openapi/ghost-agent`);
  assert.is(ghost.status, 403, JSON.stringify(ghost.body));
  assert.is(ghost.body.error.code, "FORBIDDEN");
  assert.match(ghost.body.error.message, /no verified registration \(1 ignored \(unsigned\)\)/);
  assert.equal(attacker.received, [], "no HEAD probe, no document fetch");
});

test.run();
