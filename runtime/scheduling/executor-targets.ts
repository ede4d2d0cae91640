/**
 * Where the executor sends a target agent's runs: its replicas as last looked up through discovery
 * (reused for a second, round-robin), and its metric labels, built once per agent.
 */
import { baseUrlOf, preferHealthy, type Registry, type RegistryEntry } from "../discovery/index.js";
import { ATTR, getTelemetry, METRIC } from "../telemetry/index.js";
import type { Clock } from "../util/index.js";
import { SCHEDULED_EXECUTOR_QUEUE, SCHEDULED_PATH } from "./wire.js";

/** What a target agent's name resolves to: the URL of one replica's scheduled endpoint, or why there is none. */
export type Target = { readonly kind: "agent"; readonly url: string } | { readonly kind: "tool" } | { readonly kind: "unknown" };

/**
 * How long a lookup of an agent's replicas is reused: the catalog cache's own freshness, so a burst
 * of dispatches to one agent costs one lookup a second, not one each. A failed dispatch forgets it.
 */
export const REPLICAS_FRESH_MS = 1_000;
/** Agents whose replicas (and metric labels) are remembered at most; past it the memo starts over. */
const MAX_AGENTS_REMEMBERED = 10_000;

export const MODULE = { [ATTR.MODULE]: SCHEDULED_EXECUTOR_QUEUE };

/** One target agent's metric labels, built once (spreading computed-key literals on every dispatch showed in profiles). */
export interface AgentLabels {
  readonly received: Readonly<Record<string, string>>;
  readonly success: Readonly<Record<string, string>>;
  readonly error: Readonly<Record<string, string>>;
  readonly deadLetter: Readonly<Record<string, string>>;
  /** A redelivered run its agent had already done: completed without a POST. */
  readonly suppressed: Readonly<Record<string, string>>;
}

export function agentLabels(agent: string): AgentLabels {
  const received = { ...MODULE, [ATTR.TARGET_AGENT]: agent };
  return {
    received,
    success: { ...received, [ATTR.STATUS]: "success" },
    error: { ...received, [ATTR.STATUS]: "error" },
    deadLetter: { ...received, [ATTR.STATUS]: "dead_letter" },
    suppressed: { ...received, [ATTR.STATUS]: "duplicate_suppressed" },
  };
}

export interface Targets {
  /** Round-robin over the replicas looked up last, while that lookup is fresh (`avoid`: a replica that just failed, skipped while another exists); undefined when it is not. */
  known(name: string, avoid?: string): Target | undefined;
  /** A healthy replica (round-robin), else any live one, not `avoid` while another exists; a name registered only as a tool is `tool`. */
  resolve(name: string, avoid?: string): Promise<Target>;
  /** The replica may be gone: the next attempt looks the agent up again. */
  forget(name: string): void;
  labelsOf(agent: string): AgentLabels;
}

export function createTargets(registry: Registry, clock: Clock): Targets {
  const replicas = new Map<string, { readonly urls: readonly string[]; readonly at: number }>();
  const turn = new Map<string, number>();
  const labels = new Map<string, AgentLabels>();
  const known = (name: string, avoid?: string): Target | undefined => {
    const found = replicas.get(name);
    if (found === undefined || clock.now() - found.at >= REPLICAS_FRESH_MS) return undefined;
    let next = turn.get(name) ?? 0;
    // A retry goes to another replica when there is one: the one that failed may be hung.
    if (found.urls.length > 1 && found.urls[next % found.urls.length] === avoid) next += 1;
    turn.set(name, next + 1);
    return { kind: "agent", url: found.urls[next % found.urls.length]! };
  };
  return {
    known,
    resolve: async (name, avoid) => {
      const entries = await lookUp(registry, name);
      const agents = entries.filter((e) => e.type === "agent");
      // Neither answer is remembered: an agent registering now is found by the next attempt.
      if (agents.length === 0) return entries.length > 0 ? { kind: "tool" } : { kind: "unknown" };
      if (replicas.size >= MAX_AGENTS_REMEMBERED) {
        replicas.clear();
        turn.clear();
      }
      replicas.set(name, { urls: preferHealthy(agents).map((entry) => `${baseUrlOf(entry)}${SCHEDULED_PATH}`), at: clock.now() });
      return known(name, avoid)!;
    },
    forget: (name) => void replicas.delete(name),
    labelsOf: (agent) => {
      let found = labels.get(agent);
      if (found === undefined) {
        if (labels.size >= MAX_AGENTS_REMEMBERED) labels.clear();
        labels.set(agent, (found = agentLabels(agent)));
      }
      return found;
    },
  };
}

/** The agent's live registrations, counted as a cache-miss catalog refresh. */
async function lookUp(registry: Registry, name: string): Promise<RegistryEntry[]> {
  const { metrics } = getTelemetry();
  try {
    const entries = await registry.byName(name, { health: ["healthy", "degraded", "unknown"] });
    metrics.counter(METRIC.EXECUTOR_CATALOG_REFRESH, 1, { ...MODULE, [ATTR.STATUS]: "success", [ATTR.TRIGGER]: "cache_miss" });
    return entries;
  } catch (error) {
    metrics.counter(METRIC.EXECUTOR_CATALOG_REFRESH, 1, { ...MODULE, [ATTR.STATUS]: "error", [ATTR.TRIGGER]: "cache_miss" });
    throw error;
  }
}
