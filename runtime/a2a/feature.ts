/**
 * A2A (Agent2Agent) as an agent feature: `a2a: true` in the manifest, `MANIFOLD_A2A_ENABLED`, or the
 * `a2a` serve option (option > env > manifest, as for MCP) serves the agent card at
 * `/.well-known/agent-card.json` and JSON-RPC at `POST /a2a`. The SDK is loaded only then.
 */
import { createLazyExtension, type AgentFeature, type LazyRoute } from "../feature/index.js";
import { envFlag } from "../util/index.js";
import { checkTaskStoreOptions, type A2aServeOptions } from "./options.js";
import { a2aSchema, normaliseA2a } from "./manifest.js";
import { addA2aPaths, servedA2aPaths } from "./openapi.js";

// Its manifest part's types, re-exported so that every program that sees this descriptor also sees
// the module augmentations there (the agent spec and raw manifest assembled from the features).
export type * from "./manifest.js";
export type { A2aServeOptions, A2aSettings } from "./options.js";

/** Whether A2A is served: the option, else `MANIFOLD_A2A_ENABLED` (`true` or `false`), else the manifest's `a2a`. */
export function resolveA2aEnabled(option: boolean | undefined, manifest: boolean | undefined, env: Readonly<Record<string, string | undefined>>): boolean {
  return option ?? envFlag(env, "MANIFOLD_A2A_ENABLED") ?? manifest ?? false;
}

/** The routes the A2A extension adds, in its order: served from start, the extension loads on the first request. */
export const A2A_ROUTES: readonly LazyRoute[] = [
  ["GET", "/.well-known/agent-card.json"],
  ["POST", "/a2a"],
];

export const a2aFeature: AgentFeature<A2aServeOptions> = {
  key: "a2a",
  schema: a2aSchema,
  routePrefixes: ["/a2a", "/.well-known/agent-card.json"],
  normalise: normaliseA2a,
  optionKeys: ["a2a"],
  // Always built: MANIFOLD_A2A_ENABLED can turn A2A on for an agent whose manifest says nothing.
  enabled: () => true,
  openapi: addA2aPaths,
  async build({ a2a }, { spec, agent, env, log, orchestration }) {
    const settings = typeof a2a === "object" ? a2a : {};
    const enabled = resolveA2aEnabled(typeof a2a === "boolean" ? a2a : settings.enabled, agent.a2a, env);
    const openapi = [servedA2aPaths(enabled)];
    if (!enabled) return { extension: { name: "a2a", openapi } };
    // What the task store checks, checked at start so that a bad setting still fails start-up.
    checkTaskStoreOptions(settings);
    const natural = orchestration.orchestrator.hasPlanner || agent.orchestration.natural !== undefined;
    // The card and JSON-RPC answer requests only: the extension (executor, task store) loads with the first.
    const load = async () => (await import("./extension.js")).createA2aExtension({ ...settings, spec, natural, chat: agent.chat === true, log: log("a2a") });
    return { extension: createLazyExtension({ name: "a2a", routes: A2A_ROUTES, openapi, load }).extension };
  },
};
