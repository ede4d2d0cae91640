/**
 * The dashboard's settings from the environment it shares with the network it watches: the same
 * store variables the agents read (REDIS_URL, MANIFOLD_REDIS_*), the debug-store switches, and the
 * spec's viewer variables. Bad values are RangeErrors naming the variable, found at start-up.
 */
import { executionDebugEnabled } from "../orchestration/served.js";
import { llmDebugEnabled } from "../llm/index.js";
import { durationFromEnv } from "../spec/index.js";
import { checkKeyName, resolveNamespace } from "../store/index.js";

type Env = Readonly<Record<string, string | undefined>>;

export const AGENT_NAME_ENV = "MANIFOLD_AGENT_NAME";
export const MEMORY_DOMAINS_ENV = "MANIFOLD_VIEWER_MEMORY_DOMAINS";
export const TRACE_UI_ENV = "TRACE_UI_URL";
export const POLL_ENV = "MANIFOLD_DASHBOARD_POLL_INTERVAL";

/** More domains than this is a misconfiguration (and the registry's agents are cut to it): each is a store of its own. */
export const MAX_MEMORY_DOMAINS = 20;
const COMPONENT_NAME = /^[a-z][a-z0-9-]{0,62}$/;

export interface DashboardSettings {
  /** The one agent whose checkpoints the HITL view lists and commands by default; every agent's when unset. */
  readonly agentName: string | undefined;
  /**
   * Agent memory domains (the agents' `MANIFOLD_AGENT_DOMAIN`) whose episodes, digest and knowledge
   * the Memory view reads; the first is the default. Empty: the agents in the registry, by name.
   */
  readonly memoryDomains: readonly string[];
  /** A trace viewer to link from the header, when set. */
  readonly traceUiUrl: string | undefined;
  readonly llmDebug: boolean;
  readonly executions: boolean;
  /** How often the web app refreshes the open view. */
  readonly pollMs: number;
}

export interface SettingsOverrides {
  readonly agentName?: string | undefined;
  readonly memoryDomains?: readonly string[] | undefined;
  readonly traceUiUrl?: string | undefined;
  readonly pollMs?: number | undefined;
}

function agentNameOf(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (!COMPONENT_NAME.test(value)) throw new RangeError(`${name} must be a component name (a DNS label), not ${JSON.stringify(value.slice(0, 80))}`);
  return value;
}

function domainsOf(list: readonly string[], name: string): readonly string[] {
  const domains = [...new Set(list.map((d) => d.trim()).filter((d) => d !== ""))];
  if (domains.length > MAX_MEMORY_DOMAINS) throw new RangeError(`${name} lists ${domains.length} domains; at most ${MAX_MEMORY_DOMAINS}`);
  for (const domain of domains) checkKeyName(name, domain);
  return domains;
}

/** Only a plain http(s) URL may become a link: a `javascript:` URL in the header would run in the dashboard's origin. */
function traceUrlOf(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === "") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(`${name} must be an http(s) URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new RangeError(`${name} must be an http(s) URL`);
  return url.href;
}

export function resolveDashboardSettings(env: Env, overrides: SettingsOverrides = {}): DashboardSettings {
  // Checked here so a bad namespace stops the start, not the first request.
  resolveNamespace(undefined, env);
  const pollMs = overrides.pollMs ?? durationFromEnv(env, POLL_ENV, 2000);
  if (!Number.isSafeInteger(pollMs) || pollMs < 200 || pollMs > 600_000) throw new RangeError(`${POLL_ENV} must be from 200ms to 10m`);
  return {
    agentName: agentNameOf(overrides.agentName ?? env[AGENT_NAME_ENV], overrides.agentName === undefined ? AGENT_NAME_ENV : "agentName"),
    memoryDomains: domainsOf(
      overrides.memoryDomains ?? (env[MEMORY_DOMAINS_ENV] ?? "").split(","),
      overrides.memoryDomains === undefined ? MEMORY_DOMAINS_ENV : "memoryDomains",
    ),
    traceUiUrl: traceUrlOf(overrides.traceUiUrl ?? env[TRACE_UI_ENV], overrides.traceUiUrl === undefined ? TRACE_UI_ENV : "traceUiUrl"),
    llmDebug: llmDebugEnabled(env),
    executions: executionDebugEnabled(env),
    pollMs,
  };
}
