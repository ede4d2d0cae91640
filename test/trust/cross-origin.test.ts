/**
 * H1 (cross-origin approvals) and L4 (DNS rebinding) as a hostile page attacks them, in headless
 * Chromium: the HITL agent and its payment tool are real processes on a real Redis (the fixtures of
 * test/e2e/hitl-network.test.ts), a checkpoint waits for approval of a 424,242 charge, and a page
 * served from another loopback origin (another port) tries to read the checkpoints, approve with its
 * own `parameters: {amount: 99999999}` and resume. The reads must fail in the browser (no CORS), the
 * writes must be refused by the agent (403), the checkpoint must stay pending and the tool must never
 * charge. A name the browser resolves to loopback (a rebound DNS name) gets 403 for its Host. Then an
 * agent started with MANIFOLD_CORS_ORIGINS naming the page's origin lets that page read: the allowlist.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { killAll, startFixture, type Fixture } from "../e2e/helpers.js";
import { rawRequest, withTimeout } from "../runtime/support.js";

const WAIT_MS = 15_000;
const REBOUND = "rebound.test";
let redis: RedisServer;
let llm: ScriptedLlm;
let tool: Fixture;
let agent: Fixture;
let allowing: Fixture | undefined;
let pageServer: Server;
let pageOrigin: string;
let browser: Browser;
let page: Page;

/**
 * The attacker's page. Its script takes the agent's URL and the checkpoint id from the query string
 * and tries, in order: read the list, approve with its own parameters, resume, each as a CORS request
 * (JSON, so preflighted), then the same writes as "simple" no-cors requests (no preflight, the answer
 * unreadable, but the server would act on them). What each attempt saw lands in `window.results`.
 */
const ATTACK_PAGE = `<!doctype html><meta charset="utf-8"><title>cute cats</title><script type="module">
const q = new URLSearchParams(location.search);
const agent = q.get("agent"), id = q.get("id");
const approve = JSON.stringify({ checkpoint_id: id, action: "approve", parameters: { amount: 99999999 } });
async function attempt(what, url, init) {
  try {
    const response = await fetch(url, init);
    return { what, status: response.status, type: response.type, body: response.type === "opaque" ? "" : await response.text() };
  } catch (error) {
    return { what, error: String(error) };
  }
}
const json = { "content-type": "application/json" };
const results = [];
results.push(await attempt("read", agent + "/hitl/checkpoints?status=pending&limit=100"));
if (q.get("only") !== "read") {
  results.push(await attempt("approve", agent + "/hitl/command", { method: "POST", headers: json, body: approve }));
  results.push(await attempt("resume", agent + "/hitl/resume/" + id, { method: "POST", headers: json, body: "{}" }));
  results.push(await attempt("approve-simple", agent + "/hitl/command", { method: "POST", mode: "no-cors", body: approve }));
  results.push(await attempt("resume-simple", agent + "/hitl/resume/" + id, { method: "POST", mode: "no-cors", body: "{}" }));
}
window.results = results;
</script>`;

interface Attempt {
  readonly what: string;
  readonly status?: number;
  readonly type?: string;
  readonly body?: string;
  readonly error?: string;
}

async function attack(agentUrl: string, checkpointId: string, only?: "read"): Promise<{ results: Attempt[]; statuses: Map<string, number[]> }> {
  // What reached the network, as the browser saw it (an opaque answer's real status included).
  const statuses = new Map<string, number[]>();
  const onResponse = (response: import("playwright-core").Response): void => {
    const url = new URL(response.url());
    if (url.origin !== agentUrl) return;
    const key = `${response.request().method()} ${url.pathname}`;
    statuses.set(key, [...(statuses.get(key) ?? []), response.status()]);
  };
  page.on("response", onResponse);
  try {
    const query = new URLSearchParams({ agent: agentUrl, id: checkpointId, ...(only === undefined ? {} : { only }) });
    await page.goto(`${pageOrigin}/?${query}`);
    await page.waitForFunction(() => (globalThis as unknown as { results?: unknown }).results !== undefined, undefined, { timeout: WAIT_MS });
    const results = await page.evaluate(() => (globalThis as unknown as { results: Attempt[] }).results);
    return { results, statuses };
  } finally {
    page.off("response", onResponse);
  }
}

async function call(method: "GET" | "POST", url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method,
    ...(method === "POST" ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) } : {}),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  return { status: response.status, body: await response.json() };
}

/** What the tool process charged per reference: asked of that process, not this one's memory. */
async function charged(ref: string): Promise<number> {
  const { status, body } = await call("POST", `${tool.url}/api/capabilities/calls`);
  assert.is(status, 200, JSON.stringify(body));
  return body.by_ref[ref] ?? 0;
}

const redisStatus = (id: string): string => redis.cli("HGET", `manifold:v1:default:{checkpoints}:cp:${id}`, "status").trim();

test.before(async () => {
  [redis, llm] = await Promise.all([startRedisServer(), startScriptedLlm()]);
  pageServer = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(ATTACK_PAGE);
  });
  await withTimeout(new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve)), WAIT_MS, "page server listening");
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  const pinned = {
    REDIS_URL: redis.url,
    MANIFOLD_REDIS_NAMESPACE: "",
    MANIFOLD_HITL_ENABLED: "",
    MANIFOLD_HITL_STEP_SENSITIVE_CAPABILITIES: "",
    MANIFOLD_CORS_ORIGINS: "",
  };
  const env = { ...pinned, MANIFOLD_LLM_BASE_URL: llm.baseUrl, MANIFOLD_LLM_API_KEY: "sk-e2e-trust", OPENAI_API_KEY: "" };
  [tool, agent] = await Promise.all([startFixture("hitl-tool.ts", pinned), startFixture("hitl-agent.ts", env)]);
  allowing = await startFixture("hitl-agent.ts", { ...env, MANIFOLD_CORS_ORIGINS: pageOrigin });
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    // The rebound name resolves to loopback inside the browser, as an attacker's DNS would make it.
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`],
  });
  page = await browser.newPage();
});

test.after(async () => {
  await browser?.close();
  killAll();
  await new Promise<void>((resolve) => (pageServer === undefined ? resolve() : pageServer.close(() => resolve())));
  await llm?.close();
  await redis?.close();
});

test("a page from another origin can neither read the checkpoints nor approve and resume one with its own parameters", async () => {
  const ref = `cross-origin-${process.pid}`;
  const paused = await call("POST", `${agent.url}/orchestrate/pay`, { a: 424_240, ref });
  assert.is(paused.status, 202, JSON.stringify(paused.body));
  const id: string = paused.body.checkpoint_id;
  assert.equal(paused.body.checkpoint.resolved_parameters, { amount: 424_242, ref });

  const { results, statuses } = await attack(agent.url, id);
  const by = (what: string): Attempt => results.find((r) => r.what === what)!;
  // The reads fail in the browser: no Access-Control-Allow-Origin for this origin.
  assert.match(String(by("read").error), /TypeError/, JSON.stringify(by("read")));
  // The JSON writes never leave the browser: their preflight is refused.
  assert.match(String(by("approve").error), /TypeError/, JSON.stringify(by("approve")));
  assert.match(String(by("resume").error), /TypeError/, JSON.stringify(by("resume")));
  // The simple writes the browser does send are refused by the agent before any handler runs.
  assert.is(by("approve-simple").type, "opaque");
  assert.equal(statuses.get("POST /hitl/command"), [403], JSON.stringify([...statuses]));
  assert.equal(statuses.get(`POST /hitl/resume/${id}`), [403], JSON.stringify([...statuses]));

  assert.is(redisStatus(id), "pending", "the checkpoint still waits for a person");
  const stored = await call("GET", `${agent.url}/hitl/checkpoints/${id}`);
  assert.is(stored.body.status ?? stored.body.checkpoint?.status, "pending", JSON.stringify(stored.body));
  assert.is(await charged(ref), 0, "the tool never charged, let alone 99,999,999");
});

test("a rebound DNS name (resolving to loopback) is not served: 403 for its Host, from the agent and in the browser", async () => {
  const refused = await rawRequest(`${agent.url}/hitl/checkpoints`, { headers: { host: "evil.example" } });
  assert.is(refused.status, 403);
  assert.is(JSON.parse(refused.text).error.code, "FORBIDDEN");
  const port = new URL(agent.url).port;
  const response = await page.goto(`http://${REBOUND}:${port}/hitl/checkpoints?status=pending`);
  assert.is(response?.status(), 403);
  assert.match(await page.content(), /is not served here/);
});

test("with MANIFOLD_CORS_ORIGINS naming the page's origin, the same page reads the checkpoints", async () => {
  const ref = `allowed-origin-${process.pid}`;
  const paused = await call("POST", `${allowing!.url}/orchestrate/pay`, { a: 10, ref });
  assert.is(paused.status, 202, JSON.stringify(paused.body));
  const id: string = paused.body.checkpoint_id;
  const { results } = await attack(allowing!.url, id, "read");
  const read = results.find((r) => r.what === "read")!;
  assert.is(read.status, 200, JSON.stringify(read));
  assert.ok(
    (JSON.parse(read.body!).checkpoints as { checkpoint_id: string }[]).some((c) => c.checkpoint_id === id),
    "the allowlisted page sees the pending checkpoint",
  );
  // The agent without the list still refuses the same page.
  const { results: refused } = await attack(agent.url, id, "read");
  assert.match(String(refused.find((r) => r.what === "read")!.error), /TypeError/);
});

test.run();
