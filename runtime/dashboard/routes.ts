/**
 * The dashboard's JSON API. `/api/services`, `/swagger-urls.json` and `/api/hitl/command` are the
 * spec's; the rest back the six views. Every list is bounded (a `limit` with a maximum, previews
 * instead of whole records), every error is the component's envelope.
 */
import { sendJson, type AddRoute } from "../component/index.js";
import type { Registry } from "../discovery/index.js";
import { ManifoldError } from "../errors/index.js";
import type { CheckpointStore } from "../hitl/index.js";
import type { LlmDebugStore } from "../llm/index.js";
import type { ExecutionStore } from "../orchestration/served.js";
import type { Caller } from "../outbound/index.js";
import { addExecutionRoutes, addLlmDebugRoutes, EXECUTIONS_OFF, LLM_DEBUG_OFF } from "./debug-routes.js";
import { addHitlRoutes } from "./hitl-routes.js";
import { addMemoryRoutes } from "./memory-routes.js";
import type { MemorySources } from "./memory.js";
import { describeIgnored, trusted, type RegistryView } from "./registry-view.js";
import type { OpenApiProbe } from "./services.js";
import { fetchOpenApiDocument } from "./openapi-document.js";
import type { DashboardSettings } from "./settings.js";
import { oneOf, privateRoute, sendEncoded, sendValue, storeRoute } from "./http.js";
import type { SkillStore } from "../skills/index.js";
import { addSkillRoutes } from "./skills-routes.js";

/** What the API reads; `undefined` debug stores are switched off. */
export interface DashboardSources {
  /** Where commands find the owning agent: read fresh. */
  readonly registry: Registry;
  /** What the views list: a snapshot refreshed behind the requests. */
  readonly view: RegistryView;
  readonly checkpoints: CheckpointStore;
  readonly llmDebug: LlmDebugStore | undefined;
  readonly executions: ExecutionStore | undefined;
  readonly memory: MemorySources;
  readonly skills: SkillStore;
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

/** Shown (and answered in `/api/config`) while the dashboard has no registry key. */
export const REGISTRY_UNSIGNED =
  "registry is unsigned: any process that can write to the store can register a record under any name. Set MANIFOLD_REGISTRY_KEY (the same key) on every component and on the dashboard";

/** The Settings view's answer: where the dashboard reads from and which debug stores are on. */
function addConfigRoute(add: AddRoute, sources: DashboardSources): void {
  const { settings } = sources;
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
        registry: sources.view.verifies ? { signed: true } : { signed: false, message: REGISTRY_UNSIGNED },
        stores: {
          llm_debug: sources.llmDebug === undefined ? { enabled: false, message: LLM_DEBUG_OFF } : { enabled: true },
          executions: sources.executions === undefined ? { enabled: false, message: EXECUTIONS_OFF } : { enabled: true },
        },
      }),
    ),
  );
}

/** The registry's routes (open like `/api/capabilities`): the service list, Swagger URLs, each service's OpenAPI document. */
function addRegistryRoutes(add: AddRoute, view: RegistryView, probe: OpenApiProbe): void {
  add("GET", "/api/services", async (ctx) => {
    const type = oneOf(ctx, "type", ["tool", "agent", "mcp"] as const);
    sendEncoded(ctx, (await view.snapshot()).services(type));
  });

  add("GET", "/swagger-urls.json", async (ctx) => {
    // Only trusted records are probed: a forged one must not make the dashboard send requests to its address.
    const entries = (await view.snapshot()).entries.filter((e) => (e.health === "healthy" || e.health === "degraded") && trusted(e, view.verifies));
    sendValue(ctx, await probe.swaggerUrls(entries, (name) => `/api/openapi/${encodeURIComponent(name)}`));
  });

  add("GET", "/api/openapi/:name", async (ctx) => {
    const name = ctx.params["name"] ?? "";
    const registered = await view.asRegistry.byName(name, { health: ["healthy", "degraded"], unverified: true });
    const verified = registered.filter((e) => trusted(e, view.verifies));
    if (verified.length === 0 && registered.length > 0)
      throw new ManifoldError(
        "FORBIDDEN",
        `${JSON.stringify(name.slice(0, 80))} has no verified registration (${describeIgnored(registered)}): the dashboard fetches documents only from records signed with MANIFOLD_REGISTRY_KEY`,
      );
    const replicas = await probe.servingReplicas(verified);
    if (replicas.length === 0) throw new ManifoldError("NOT_FOUND", `no running service ${JSON.stringify(name.slice(0, 80))} serves an OpenAPI document`);
    ctx.set("Cache-Control", "no-store");
    sendJson(ctx, 200, await fetchOpenApiDocument(replicas));
  });
}

export function addApiRoutes(add: AddRoute, sources: DashboardSources): void {
  const dataRoute = storeRoute(sources.available);
  addConfigRoute(add, sources);
  addRegistryRoutes(add, sources.view, sources.probe);
  addLlmDebugRoutes(add, sources.llmDebug, dataRoute);
  addExecutionRoutes(add, sources.executions, sources.checkpoints, dataRoute);
  addHitlRoutes(
    add,
    {
      registry: sources.registry,
      checkpoints: sources.checkpoints,
      caller: sources.caller,
      agentName: sources.settings.agentName,
      bodyLimit: sources.bodyLimit,
      resumeTimeoutMs: sources.resumeTimeoutMs,
      now: sources.now,
    },
    dataRoute,
  );
  addSkillRoutes(add, { view: sources.view, skills: sources.skills, executions: sources.executions, now: sources.now }, dataRoute);
  addMemoryRoutes(add, sources.memory, dataRoute);
}
