/**
 * `serveDashboard()` (and `manifold dashboard`): the registry viewer. A component without
 * capabilities whose routes are the web app and its JSON API, so it gets the component runtime's
 * error envelope, body limit, request timeouts, CORS preflight, graceful shutdown and `/health`.
 * It reads the stores the network writes, chosen from the same environment (REDIS_URL,
 * MANIFOLD_REDIS_*), and does not register itself: it is not something a planner may call.
 */
import {
  resolveAllowedHosts,
  resolveCorsOrigins,
  serveComponent,
  type ComponentExtension,
  type ComponentOptions,
  type RunningComponent,
} from "../component/index.js";
import { createRegistry, type Registry } from "../discovery/index.js";
import { createCheckpointStore, type CheckpointStore } from "../hitl/index.js";
import { createLlmDebugStore, type LlmDebugStore } from "../llm/index.js";
import { createExecutionStore, type ExecutionStore } from "../orchestration/served.js";
import { createCaller, type Caller } from "../outbound/index.js";
import type { ComponentSpec } from "../spec/index.js";
import { createStore, type Store } from "../store/index.js";
import { createEpisodeStore, createFactStore, type EpisodeStore, type FactStore } from "../memory/index.js";
import { createSkillStore, type SkillStore } from "../skills/index.js";
import { createSessionStore } from "../chat/index.js";
import { createMemorySources } from "./memory.js";
import { addApiRoutes, type DashboardSources } from "./routes.js";
import { createRegistryView, trusted, type RegistryViewOptions } from "./registry-view.js";
import { createOpenApiProbe, type OpenApiProbeOptions } from "./services.js";
import { resolveDashboardSettings, type DashboardSettings } from "./settings.js";
import { addStaticRoutes } from "./static.js";

/** The port when neither the option nor PORT gives one: beside the travel example's 8091–8099. */
export const DEFAULT_DASHBOARD_PORT = 8090;

export const DASHBOARD_SPEC: ComponentSpec = {
  kind: "tool",
  name: "dashboard",
  description: "The Manifold dashboard: registry, debug records, checkpoints, skills and memory of a network",
  version: "1.0.0",
  port: DEFAULT_DASHBOARD_PORT,
  capabilities: [],
};

export interface DashboardOptions
  extends Omit<ComponentOptions<never>, "handlers" | "extensions" | "registry" | "enableOpenApi" | "healthOnly" | "auth" | "registration" | "healthCheck"> {
  /** Where the network's registry and records live. @defaultValue `createStore({ env })`: Redis when configured, else this process's memory */
  readonly store?: Store;
  /** The registry to show. @defaultValue the store's */
  readonly registry?: Registry;
  /** @defaultValue `MANIFOLD_LLM_DEBUG_ENABLED`: the store's LLM debug records when true, else the view says capture is off */
  readonly llmDebug?: LlmDebugStore | boolean;
  /** @defaultValue `MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED`, likewise */
  readonly executions?: ExecutionStore | boolean;
  /** @defaultValue the store's checkpoints */
  readonly checkpoints?: CheckpointStore;
  /** Scopes the HITL view and its commands to one agent. @defaultValue `MANIFOLD_AGENT_NAME`, else every agent */
  readonly agentName?: string;
  /** Agent memory domains the Memory view reads. @defaultValue `MANIFOLD_VIEWER_MEMORY_DOMAINS`, else the registered agents' names */
  readonly memoryDomains?: readonly string[];
  /** The skill registry of the Skills view. @defaultValue the store's */
  readonly skills?: SkillStore;
  /** Users' facts for the Memory view. @defaultValue the store's */
  readonly facts?: FactStore;
  /** One agent memory domain's episodes for the Memory view. @defaultValue the store's, per domain */
  readonly episodes?: (domain: string) => EpisodeStore;
  /** @defaultValue `TRACE_UI_URL` */
  readonly traceUiUrl?: string;
  /** How often the open view refreshes. @defaultValue `MANIFOLD_DASHBOARD_POLL_INTERVAL`, else 2 s */
  readonly pollMs?: number;
  /** How long an approval waits for the resumed run's answer. @defaultValue 60000 */
  readonly resumeTimeoutMs?: number;
  /** How fresh the registry views are kept. @defaultValue 1 s fresh, reloaded behind the requests */
  readonly registryView?: Omit<RegistryViewOptions, "now">;
  /** How the API browser's list finds out which services serve OpenAPI. */
  readonly openApiProbe?: OpenApiProbeOptions;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface RunningDashboard extends RunningComponent {
  readonly settings: DashboardSettings;
}

function chooseStore<T>(option: T | boolean | undefined, enabled: boolean, create: () => T): { store: T | undefined; owned: boolean } {
  if (typeof option === "object" && option !== null) return { store: option, owned: false };
  return (option ?? enabled) ? { store: create(), owned: true } : { store: undefined, owned: false };
}

/** What the dashboard reads, opened from the options (or given), and how to close what this call opened. */
interface DashboardSourcesOpened extends Pick<DashboardSources, "registry" | "view" | "checkpoints" | "llmDebug" | "executions" | "memory" | "skills"> {
  readonly caller: Caller;
  readonly store: Store;
  close(): Promise<void>;
}

function openSources(options: DashboardOptions, settings: DashboardSettings, env: Readonly<Record<string, string | undefined>>): DashboardSourcesOpened {
  const { store: given, registry: givenRegistry, checkpoints: givenCheckpoints } = options;
  const store = given ?? createStore({ env });
  const registry = givenRegistry ?? createRegistry({ store, env });
  const llm = chooseStore(options.llmDebug, settings.llmDebug, () => createLlmDebugStore({ store, env }));
  const executions = chooseStore(options.executions, settings.executions, () => createExecutionStore({ store, env }));
  const checkpoints = givenCheckpoints ?? createCheckpointStore({ store, env });
  const view = createRegistryView(registry, options.registryView);
  const skills = options.skills ?? createSkillStore({ store, env });
  const facts = options.facts ?? createFactStore({ store, env });
  const sessions = createSessionStore({ store, env });
  const memory = createMemorySources({
    store,
    sessions,
    facts,
    openEpisodes: options.episodes ?? ((domain) => createEpisodeStore({ store, env, domain })),
    configured: settings.memoryDomains,
    // An agent's domain is its name unless MANIFOLD_AGENT_DOMAIN says otherwise (then list it in MANIFOLD_VIEWER_MEMORY_DOMAINS).
    // Only trusted records: a forged one must not push the real agents out of the (bounded) list.
    agents: async () => (await view.snapshot()).entries.filter((e) => e.type === "agent" && trusted(e, view.verifies)).map((e) => e.name),
  });
  return {
    registry,
    view,
    checkpoints,
    llmDebug: llm.store,
    executions: executions.store,
    memory,
    skills,
    caller: createCaller({ env: env as NodeJS.ProcessEnv, timeoutMs: 10_000 }),
    store,
    close: async () => {
      // What this call opened is closed; what was given stays open for its owner.
      await memory.close();
      await sessions.close();
      if (options.facts === undefined) await facts.close();
      if (options.skills === undefined) await skills.close();
      if (llm.owned) await llm.store?.close();
      if (executions.owned) await executions.store?.close();
      if (givenCheckpoints === undefined) await checkpoints.close();
      if (givenRegistry === undefined) await registry.close();
      if (given === undefined) await store.close();
    },
  };
}

/** The extension that adds the API and the web app, loads the first registry snapshot and closes the sources. */
function dashboardExtension(
  opened: DashboardSourcesOpened,
  settings: DashboardSettings,
  { resumeTimeoutMs, openApiProbe }: { readonly resumeTimeoutMs: number; readonly openApiProbe: OpenApiProbeOptions | undefined },
): ComponentExtension {
  const { store, view } = opened;
  return {
    name: "dashboard",
    routes(add, { bodyLimit }) {
      addApiRoutes(add, {
        registry: opened.registry,
        view,
        checkpoints: opened.checkpoints,
        llmDebug: opened.llmDebug,
        executions: opened.executions,
        memory: opened.memory,
        skills: opened.skills,
        probe: createOpenApiProbe(openApiProbe),
        caller: opened.caller,
        settings,
        store: { kind: store.kind, namespace: store.namespace },
        bodyLimit,
        resumeTimeoutMs,
        now: Date.now,
        // Bounded like the registry's connect wait: a request during an outage waits at most 1 s to learn it.
        available: async () => store.kind === "memory" || store.client.status === "ready" || (await store.whenReady(1000)),
      });
      addStaticRoutes(add);
    },
    start: async () => {
      // The first registry snapshot is loaded before serveDashboard resolves (at most 2 s: a
      // registry that is down is reported by the views), so even the first request is answered
      // from it instead of waiting for a read of every registration.
      await Promise.race([view.snapshot().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    },
    stop: () => opened.close(),
  };
}

export async function serveDashboard(options: DashboardOptions = {}): Promise<RunningDashboard> {
  const {
    store: _store,
    registry: _registry,
    llmDebug: _llmDebug,
    executions: _executions,
    checkpoints: _checkpoints,
    skills: _skills,
    facts: _facts,
    episodes: _episodes,
    agentName,
    memoryDomains,
    traceUiUrl,
    pollMs,
    resumeTimeoutMs = 60_000,
    openApiProbe,
    registryView: _registryView,
    env = process.env,
    ...component
  } = options;
  const settings = resolveDashboardSettings(env, { agentName, memoryDomains, traceUiUrl, pollMs });
  const opened = openSources(options, settings, env);
  let running: RunningComponent;
  try {
    running = await serveComponent<{}>(DASHBOARD_SPEC, {
      ...component,
      // From the dashboard's own environment, like its other settings: its pages are same-origin, its
      // Host rule keeps a rebound name (DNS rebinding) from reading or commanding through a browser.
      corsOrigins: resolveCorsOrigins(component.corsOrigins, env),
      allowedHosts: resolveAllowedHosts(component.allowedHosts, env),
      handlers: {},
      registry: false,
      enableOpenApi: false,
      extensions: [dashboardExtension(opened, settings, { resumeTimeoutMs, openApiProbe })],
    });
  } catch (error) {
    // The port was taken, say: nothing opened for the dashboard outlives the failed start.
    await opened.close();
    throw error;
  }
  return { ...running, close: () => running.close(), settings };
}
