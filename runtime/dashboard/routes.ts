/**
 * The dashboard's JSON API. `/api/services`, `/swagger-urls.json` and `/api/hitl/command` are the
 * spec's; the rest back the six views. Every list is bounded (a `limit` with a maximum, previews
 * instead of whole records), every error is the component's envelope.
 */
import { jsonRoute, sendJson, type AddRoute, type RouteContext } from "../component/index.js";
import type { Registry } from "../discovery/index.js";
import { ManifoldError } from "../errors/index.js";
import { CHECKPOINT_STATUSES, type CheckpointStatus, type CheckpointStore, type CheckpointType } from "../hitl/index.js";
import type { LlmDebugStore } from "../llm/index.js";
import type { ExecutionStore } from "../orchestration/index.js";
import type { Caller } from "../outbound/index.js";
import { executionSummary, llmSummary } from "./debug.js";
import { CHECKPOINT_TYPES, checkpointView, parseCommand, proxyCommand } from "./hitl.js";
import { addMemoryRoutes } from "./memory-routes.js";
import type { MemoryDomains } from "./memory.js";
import type { RegistryView } from "./registry-view.js";
import type { OpenApiProbe } from "./services.js";
import { fetchOpenApiDocument } from "./openapi-document.js";
import type { DashboardSettings } from "./settings.js";
import { limitOf, oneOf, privateRoute, queryOf, sendValue, storeRoute } from "./http.js";
import { readSkills } from "./skills.js";

/** What the API reads; `undefined` debug stores are switched off. */
export interface DashboardSources {
  /** Where commands find the owning agent: read fresh. */
  readonly registry: Registry;
  /** What the views list: a snapshot refreshed behind the requests. */
  readonly view: RegistryView;
  readonly checkpoints: CheckpointStore;
  readonly llmDebug: LlmDebugStore | undefined;
  readonly executions: ExecutionStore | undefined;
  readonly memory: MemoryDomains;
  readonly probe: OpenApiProbe;
  readonly caller: Caller;
  readonly settings: DashboardSettings;
  readonly store: { readonly kind: "memory" | "redis"; readonly namespace: string };
  readonly bodyLimit: number;
  /** How long a resumed run may take to answer an approval. */
  readonly resumeTimeoutMs: number;
  readonly now: () => number;
  /** Whether the store answers now (bounded wait while it reconnects). */
  readonly available: () => Promise<boolean>;
}

export const LLM_DEBUG_OFF = "LLM debug capture is off: set MANIFOLD_LLM_DEBUG_ENABLED=true (on the agents and on the dashboard)";
export const EXECUTIONS_OFF = "Execution records are off: set MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED=true (on the agents and on the dashboard)";

/** A command from another origin is refused: a page elsewhere must not approve a payment through the user's browser. */
function refuseCrossOrigin(ctx: RouteContext): void {
  const origin = ctx.get("Origin");
  const site = ctx.get("Sec-Fetch-Site");
  let sameOrigin = site === "" || site === "same-origin" || site === "none";
  if (origin !== "" && origin !== "null") {
    try {
      sameOrigin &&= new URL(origin).host === ctx.host;
    } catch {
      sameOrigin = false;
    }
  } else if (origin === "null") sameOrigin = false;
  if (!sameOrigin) throw new ManifoldError("UNAUTHORIZED", "checkpoint commands are accepted only from the dashboard's own pages");
}

export function addApiRoutes(add: AddRoute, sources: DashboardSources): void {
  const { registry, view, checkpoints, settings } = sources;
  const dataRoute = storeRoute(sources.available);

  add(
    "GET",
    "/api/config",
    privateRoute((ctx) =>
      sendValue(ctx, {
        store: sources.store.kind,
        namespace: sources.store.namespace,
        agent_name: settings.agentName ?? null,
        memory_domains: settings.memoryDomains,
        trace_ui_url: settings.traceUiUrl ?? null,
        poll_ms: settings.pollMs,
        stores: {
          llm_debug: sources.llmDebug === undefined ? { enabled: false, message: LLM_DEBUG_OFF } : { enabled: true },
          executions: sources.executions === undefined ? { enabled: false, message: EXECUTIONS_OFF } : { enabled: true },
        },
      }),
    ),
  );

  add("GET", "/api/services", async (ctx) => {
    const type = oneOf(ctx, "type", ["tool", "agent"] as const);
    const text = (await view.snapshot()).servicesJson(type);
    ctx.set("Cache-Control", "no-store");
    sendJson(ctx, 200, text);
  });

  add("GET", "/swagger-urls.json", async (ctx) => {
    const entries = (await view.snapshot()).entries.filter((e) => e.health === "healthy" || e.health === "degraded");
    sendValue(ctx, await sources.probe.swaggerUrls(entries, (name) => `/api/openapi/${encodeURIComponent(name)}`));
  });

  add("GET", "/api/openapi/:name", async (ctx) => {
    const name = ctx.params["name"] ?? "";
    const replicas = await sources.probe.servingReplicas(await view.asRegistry.byName(name, { health: ["healthy", "degraded"] }));
    if (replicas.length === 0) throw new ManifoldError("NOT_FOUND", `no running service ${JSON.stringify(name.slice(0, 80))} serves an OpenAPI document`);
    ctx.set("Cache-Control", "no-store");
    sendJson(ctx, 200, await fetchOpenApiDocument(replicas));
  });

  add(
    "GET",
    "/api/llm-debug",
    dataRoute(async (ctx) => {
      const status = oneOf(ctx, "status", ["success", "error"] as const);
      const limit = limitOf(ctx, 50, 200);
      if (sources.llmDebug === undefined) return sendValue(ctx, { enabled: false, message: LLM_DEBUG_OFF, records: [] });
      const records = await sources.llmDebug.list({ limit, ...(status === undefined ? {} : { status }) });
      sendValue(ctx, { enabled: true, records: records.map(llmSummary) });
    }),
  );

  add(
    "GET",
    "/api/llm-debug/:request_id",
    dataRoute(async (ctx) => {
      if (sources.llmDebug === undefined) throw new ManifoldError("NOT_FOUND", LLM_DEBUG_OFF);
      const record = await sources.llmDebug.get(ctx.params["request_id"] ?? "").catch((error: unknown) => {
        // A malformed id names no record: answered like an unknown one.
        if (error instanceof ManifoldError && error.code === "INVALID_INPUT") return undefined;
        throw error;
      });
      if (record === undefined) throw new ManifoldError("NOT_FOUND", "no LLM debug record with that request id");
      sendValue(ctx, record);
    }),
  );

  /** Checkpoints by plan id, newest first, so a paused run's graph shows its blocked step and conversation. */
  const recentCheckpoints = async () => {
    const byPlan = new Map<string, Awaited<ReturnType<CheckpointStore["get"]>>>();
    for (const checkpoint of (await checkpoints.list({ limit: 100 })).checkpoints) {
      if (!byPlan.has(checkpoint.plan.plan_id)) byPlan.set(checkpoint.plan.plan_id, checkpoint);
    }
    return byPlan;
  };

  add(
    "GET",
    "/api/executions",
    dataRoute(async (ctx) => {
      const status = oneOf(ctx, "status", ["success", "failed", "interrupted"] as const);
      const limit = limitOf(ctx, 50, 200);
      if (sources.executions === undefined) return sendValue(ctx, { enabled: false, message: EXECUTIONS_OFF, executions: [] });
      // The store lists newest first without a status filter: read a wider window when filtering.
      const [records, byPlan] = await Promise.all([
        sources.executions.list({ limit: status === undefined ? limit : Math.min(1000, limit * 5) }),
        recentCheckpoints(),
      ]);
      const chosen = (status === undefined ? records : records.filter((record) => record.status === status)).slice(0, limit);
      sendValue(ctx, { enabled: true, executions: chosen.map((record) => executionSummary(record, byPlan.get(record.plan_id))) });
    }),
  );

  add(
    "GET",
    "/api/executions/:plan_id",
    dataRoute(async (ctx) => {
      if (sources.executions === undefined) throw new ManifoldError("NOT_FOUND", EXECUTIONS_OFF);
      const record = await sources.executions.get(ctx.params["plan_id"] ?? "");
      if (record === undefined) throw new ManifoldError("NOT_FOUND", "no execution record with that plan id");
      sendValue(ctx, record);
    }),
  );

  add(
    "GET",
    "/api/hitl/checkpoints",
    dataRoute(async (ctx) => {
      const type = oneOf<CheckpointType>(ctx, "type", CHECKPOINT_TYPES);
      const status = oneOf<CheckpointStatus | "all">(ctx, "status", [...CHECKPOINT_STATUSES, "all"]) ?? "pending";
      const limit = limitOf(ctx, 50, 100);
      const cursor = queryOf(ctx, "cursor");
      // A dashboard scoped to one agent lists its checkpoints unless asked for every agent's (`agent=all`).
      const asked = queryOf(ctx, "agent");
      const agent = asked === "all" ? undefined : (asked ?? settings.agentName);
      const page = await checkpoints.list({
        ...(agent === undefined ? {} : { agent_name: agent }),
        limit,
        ...(status === "all" ? {} : { status }),
        ...(type === undefined ? {} : { type }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      const now = sources.now();
      sendValue(ctx, {
        checkpoints: page.checkpoints.map((checkpoint) => checkpointView(checkpoint, settings.agentName, now)),
        ...(page.next_cursor === undefined ? {} : { next_cursor: page.next_cursor }),
      });
    }),
  );

  const command = jsonRoute(
    async (body) =>
      proxyCommand(parseCommand(body), {
        checkpoints,
        registry,
        caller: sources.caller,
        scope: settings.agentName,
        resumeTimeoutMs: sources.resumeTimeoutMs,
        now: sources.now,
      }),
    { bodyLimit: sources.bodyLimit },
  );
  add(
    "POST",
    "/api/hitl/command",
    dataRoute(async (ctx) => {
      refuseCrossOrigin(ctx);
      await command(ctx);
    }),
  );

  add(
    "GET",
    "/api/skills",
    privateRoute(async (ctx) => sendValue(ctx, { agents: await readSkills(view.asRegistry) })),
  );

  addMemoryRoutes(add, sources.memory, dataRoute);
}
