/**
 * A component loads only what it serves. A plain tool: started the way a deployment starts
 * it (`manifests/travel/serve.ts geocoding-service`, a tool without MCP), up to its first healthy /health,
 * it loads no agent runtime, no agent feature, no Koa, no orchestration or tasks runtime beyond their typed clients,
 * no MCP or A2A SDK, no ajv (validators compile on first use), and neither ioredis (no Redis configured), undici, OpenTelemetry, yaml nor jose. Every module
 * the process loads, ES and CommonJS, is recorded by bench/startup/module-recorder.mjs; a control run that
 * imports the agent runtime shows the recorder sees such modules when they do load. The travel agent, which
 * turns every feature on (MCP and A2A served too), with the embedded store and no Redis or tracing: no
 * ioredis, OpenTelemetry, yaml, ajv or manifest loader, no MCP SDK (nor its zod) before an MCP client calls, and
 * no A2A SDK (nor its jose) before an A2A request, and neither chat's, A2A's nor memory's running part (their routes are
 * served from start by a shell; the part loads with the first request, which waits for it and is answered).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startProcess, stopAll } from "../support/processes.js";
import { startScriptedLlm } from "../support/scripted-llm.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { root } from "./module-imports.js";

const RECORDER = join(root, "bench", "startup", "module-recorder.mjs");
/**
 * Preloaded: appends each `.lua` file the process reads to LUA_READ_LOG. The Lua scripts are read with
 * node:fs's readFileSync, whose ES named export follows the patched property after syncBuiltinESMExports.
 */
const LUA_READS = `data:text/javascript,${encodeURIComponent(`
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const read = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (String(path).endsWith(".lua")) fs.appendFileSync(process.env.LUA_READ_LOG, String(path) + "\\n");
  return read.call(this, path, ...rest);
};
syncBuiltinESMExports();
`)}`;

/** What a plain tool must not load: a path under the repository matching one of these. */
const FORBIDDEN: readonly RegExp[] = [
  // The handles' client options, and serveManifest (the root barrel's; it imports the loader on first use).
  /^runtime\/agent\/(?!(clients|serve-manifest)\.ts$)/,
  /^runtime\/(scheduling|chat|hitl|skills|memory|a2a|llm|manifest)\//,
  /^runtime\/orchestration\/(?!client\.ts$)/,
  /^runtime\/tasks\/(?!(client|view)\.ts$)/,
  /node_modules\/@modelcontextprotocol\//,
  /node_modules\/@a2a-js\//,
  /node_modules\/ioredis\//,
  /node_modules\/undici\//,
  /node_modules\/@opentelemetry\//,
  /node_modules\/yaml\//,
  // jose checks JWTs and mints agent tokens: it loads with the first token, and none is configured here.
  /node_modules\/jose\//,
  // Koa only serves a user's own middleware (ComponentOptions.middleware).
  /node_modules\/koa\//,
  // ajv compiles each input schema on its first call: starting compiles nothing and loads none of it.
  /node_modules\/ajv\//,
];

/** What the travel agent needs for none of its features until a request asks: a path matching one of these. */
const AGENT_FORBIDDEN: readonly RegExp[] = [
  /node_modules\/ioredis\//,
  /node_modules\/@opentelemetry\//,
  /node_modules\/yaml\//,
  /node_modules\/@modelcontextprotocol\//,
  /node_modules\/zod\//,
  // The A2A SDK (and the jose it imports) loads with the first A2A request, card or JSON-RPC.
  /node_modules\/@a2a-js\//,
  /node_modules\/jose\//,
  // Validators compile on first use; the natural-mode checks make their ajv then too.
  /node_modules\/ajv\//,
  // The manifest loader and its meta-schema validator: the features' manifest parts reach only manifest/served.
  /^runtime\/manifest\/(index|meta-schema|meta-schema-validator|examples|validate-semantic)\.ts$/,
];

/** Natural mode's parts over the language model: they load with the first natural request (or synthesis). */
const NATURAL_ON_FIRST_REQUEST =
  /^runtime\/orchestration\/natural\/(llm-parts|planner|binding|phase-loop|synthesis|distill(-chunks|-prompts|-results)?|micro-resolution|selection-stage)\.ts$/;

/** What of the travel agent's request-driven features loads with the first request that needs it, not at start. */
const AGENT_ON_FIRST_REQUEST: readonly RegExp[] = [
  // Chat: its routes, turn machinery and session store.
  /^runtime\/chat\/(?!(feature|manifest|openapi|wire)\.ts$)/,
  // A2A: its extension, executor and task store (the card's builder serves the OpenAPI document too).
  /^runtime\/a2a\/(?!(feature|manifest|openapi|options|card)\.ts$)/,
  // Natural mode's planner, binding, phase loop and synthesis (llm-parts.ts): with the first natural request, or synthesis.
  NATURAL_ON_FIRST_REQUEST,
  // Natural mode's plan check (its normalisation, selection and catalog index): with the first plan it checks.
  /^runtime\/orchestration\/natural\/(index|plan-check|check-plan|normalize|phase-plan|selection|selection-prompts|catalog-index)\.ts$/,
  // Skills: the context source's selection, ranking and resources, with the first plan that gathers context.
  /^runtime\/skills\/(context|context-candidates|context-resources|selection|selection-prompts)\.ts$/,
  /^runtime\/memory\/retrieval\/(?!vectors-env\.ts$)/,
  // Memory: its stores, extraction, recall and episodes (the shell, lazy.ts, reads its settings at start).
  /^runtime\/memory\/(extension|routes|user\/(index|recall|extraction|queue)|episodic\/(index|episodic|read|record|reflection)|user\/store\/create|episodic\/store\/create)\.ts$/,
];

let dir: string;
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "manifold-lazy-"));
});
test.after(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

/** The environment without anything that would turn a feature on (Redis, OTLP export). */
function plainEnv(log: string): Record<string, string> {
  const env: Record<string, string> = { MANIFOLD_MODULE_LOG: log, HOST: "127.0.0.1" };
  for (const key of ["PATH", "HOME", "TMPDIR", "NODE_PATH"]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** The `.lua` files a process started with LUA_READS read, relative to the repository. */
async function luaReads(log: string): Promise<string[]> {
  const text = await readFile(log, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((path) => relative(root, path));
}

async function loaded(log: string): Promise<string[]> {
  const lines = (await readFile(log, "utf8")).split("\n").filter((line) => line !== "");
  return [...new Set(lines.map((path) => relative(root, path)))];
}

const forbidden = (paths: readonly string[]): string[] => paths.filter((path) => FORBIDDEN.some((pattern) => pattern.test(path)));

test("a plain tool, up to its first healthy /health, loads none of the agent's features, SDKs or ioredis/undici/OpenTelemetry", async () => {
  const log = join(dir, "geocoding.log");
  const tool = await startProcess({
    name: "geocoding-service",
    command: [process.execPath, ...TS_NODE_ARGS, "--import", RECORDER, "manifests/travel/serve.ts", "geocoding-service"],
    cleanEnv: true,
    env: plainEnv(log),
    port: "free",
    ready: { health: "/health" },
  });
  await tool.stop();
  const paths = await loaded(log);
  // The recorder saw the tool's own serving path: the check below is about a real module list.
  assert.ok(paths.includes(join("runtime", "component", "serve.ts")), `component/serve.ts not among ${paths.length} modules`);
  assert.equal(forbidden(paths), []);
});

test("the travel agent (every feature on, embedded store), up to its first healthy /health, loads no ioredis, OpenTelemetry, yaml, ajv, MCP or A2A SDK", async () => {
  const log = join(dir, "travel-agent.log");
  const luaLog = join(dir, "travel-agent-lua.log");
  const agent = await startProcess({
    name: "travel-agent",
    command: [process.execPath, ...TS_NODE_ARGS, "--import", RECORDER, "--import", LUA_READS, "manifests/travel/serve.ts", "travel-agent"],
    cleanEnv: true,
    env: { ...plainEnv(log), LUA_READ_LOG: luaLog },
    port: "free",
    ready: { health: "/health" },
  });
  const paths = await loaded(log);
  // The Redis adapters' Lua scripts are read on first use or when a Redis store is created: on the embedded store, none.
  assert.equal(await luaReads(luaLog), []);
  // The first requests of chat and A2A, sent together while their parts load: each waits for the load and is
  // answered by the part itself (listing sessions anonymously is chat's own 401, naming what it needs).
  const answers = await Promise.all(
    ["/chat/sessions", "/chat/sessions", "/.well-known/agent-card.json", "/memory/facts"].map(async (path) => {
      const response = await fetch(`${agent.url}${path}`);
      const text = await response.text();
      return `${response.status} ${text.includes("listing sessions needs an identity") ? "chat" : text.includes("memory belongs to an identified user") ? "memory" : ""}`;
    }),
  );
  assert.equal(answers, ["401 chat", "401 chat", "200 ", "401 memory"]);
  const after = await loaded(log);
  await agent.stop();
  for (const module of ["chat/extension.ts", "chat/session-routes.ts", "a2a/extension.ts", "memory/extension.ts", "memory/routes.ts"])
    assert.ok(after.includes(join("runtime", ...module.split("/"))), `${module} not loaded by its first request`);
  // Its features were built: the tasks runtime (its workers run from start) and the lazy shells of the request-driven ones.
  assert.ok(paths.includes(join("runtime", "tasks", "extension.ts")), `tasks/extension.ts not among ${paths.length} modules`);
  assert.ok(paths.includes(join("runtime", "feature", "lazy-extension.ts")), `feature/lazy-extension.ts not among ${paths.length} modules`);
  assert.equal(
    paths.filter((path) => AGENT_FORBIDDEN.some((pattern) => pattern.test(path)) || AGENT_ON_FIRST_REQUEST.some((pattern) => pattern.test(path))),
    [],
  );
});

test("with a language model, the travel agent loads natural mode's planner with its first natural request, not at start", async () => {
  // The model refuses every call (a 400 is not retried): the request fails after the planner loaded, with the usual envelope.
  const llm = await startScriptedLlm(() => ({ status: 400, body: { error: { message: "scripted refusal" } } }));
  const log = join(dir, "travel-agent-llm.log");
  try {
    const agent = await startProcess({
      name: "travel-agent (llm)",
      command: [process.execPath, ...TS_NODE_ARGS, "--import", RECORDER, "manifests/travel/serve.ts", "travel-agent"],
      cleanEnv: true,
      env: { ...plainEnv(log), MANIFOLD_LLM_BASE_URL: llm.baseUrl, MANIFOLD_LLM_API_KEY: "sk-lazy-features" },
      port: "free",
      ready: { health: "/health" },
    });
    const atStart = await loaded(log);
    const natural = (paths: readonly string[]) => paths.filter((path) => NATURAL_ON_FIRST_REQUEST.test(path));
    assert.equal(natural(atStart), []);
    const answers = await Promise.all(
      [1, 2].map(async () => {
        const response = await fetch(`${agent.url}/orchestrate/natural`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ request: "weather in Lisbon" }),
        });
        const body = (await response.json()) as { error?: { code?: string } };
        return `${response.status} ${body.error?.code}`;
      }),
    );
    const after = await loaded(log);
    await agent.stop();
    assert.equal(answers, ["502 LLM_ERROR", "502 LLM_ERROR"]);
    for (const module of ["llm-parts.ts", "planner.ts", "binding.ts", "phase-loop.ts"])
      assert.ok(after.includes(join("runtime", "orchestration", "natural", module)), `natural/${module} not loaded by the first natural request`);
  } finally {
    await llm.close();
  }
});

test("the Lua read log sees the scripts when they are read: the tasks runtime's, once a Redis store would be created", async () => {
  const log = join(dir, "lua-control.log");
  const child = await startProcess({
    name: "lua read control",
    command: [
      process.execPath,
      ...TS_NODE_ARGS,
      "--import",
      LUA_READS,
      "--input-type=module",
      "-e",
      'await import("agent-manifold/runtime/tasks"); (await import("agent-manifold/runtime/store")).readLuaScripts();',
    ],
    cleanEnv: true,
    env: { ...plainEnv(join(dir, "lua-control-modules.log")), LUA_READ_LOG: log },
  });
  const exit = await child.exited;
  assert.equal(exit.code, 0, child.tail());
  const reads = await luaReads(log);
  assert.ok(reads.includes(join("runtime", "tasks", "lua", "create-2.lua")), reads.join("\n"));
});

test("the recorder and the check see those modules when they do load: importing the agent runtime", async () => {
  const log = join(dir, "agent.log");
  const child = await startProcess({
    name: "agent runtime import",
    command: [process.execPath, ...TS_NODE_ARGS, "--import", RECORDER, "--input-type=module", "-e", 'await import("agent-manifold/runtime/agent");'],
    cleanEnv: true,
    env: plainEnv(log),
  });
  const exit = await child.exited;
  assert.equal(exit.code, 0, child.tail());
  const hits = forbidden(await loaded(log));
  assert.ok(hits.includes(join("runtime", "agent", "serve.ts")), hits.join("\n"));
  assert.ok(
    hits.some((path) => path.startsWith(join("runtime", "tasks"))),
    hits.join("\n"),
  );
});

test.run();
