/**
 * The seam every agent feature plugs into. A feature is one folder (`runtime/tasks/`,
 * `runtime/scheduling/`, …) whose `feature.ts` describes it, plus one entry in the feature list
 * (`features.ts`). Everything that used to be spread over the code base reads the list instead:
 * the manifest layer (reserved route prefixes, the MF1315 warning for keys not served yet), the
 * OpenAPI builder (paths and schemas), and `serveAgent` (routes, background work, serve options).
 */
import type { ComponentExtension } from "../component/index.js";
import type { OrchestrationExtension } from "../orchestration/index.js";
import type { Registry } from "../discovery/index.js";
import type { OpenApiParts } from "../spec/index.js";
import type { AgentSpec, ComponentSpec } from "../spec/index.js";
import type { Logger } from "../telemetry/index.js";

/** A key of the manifest format whose endpoints this version does not serve yet (warning MF1315). */
export interface PendingKey {
  /** Where it is in an agent manifest, e.g. `["orchestration", "natural"]`. */
  readonly path: readonly string[];
  /** What it would serve, for the warning: `POST /orchestrate/natural`. */
  readonly serves: string;
}

/** What `serveAgent` shares with every feature it builds. */
export interface FeatureServices {
  readonly spec: ComponentSpec;
  readonly agent: AgentSpec;
  /** Specs of the components the agent `uses`, as its generated module embeds them. */
  readonly usedSpecs: readonly ComponentSpec[];
  /** The agent's orchestrator: runs its workflows by name, for tasks and scheduled runs. */
  readonly orchestration: OrchestrationExtension;
  /** Where the agent registers; features that look other components up use it too. */
  readonly registry: Registry | false;
  /** A JSON logger for one part of the agent (`tasks`, `scheduled`). */
  log(component: string): Logger;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A built feature: its extension, and whether the process serves only `/health` (a task worker). */
export interface FeatureBuild {
  readonly extension: ComponentExtension;
  /** @defaultValue false */
  readonly healthOnly?: boolean;
}

/**
 * One agent feature. `O` is the part of the agent's `serve()` options the feature reads; the keys
 * listed in `optionKeys` are taken out before the rest goes to the component.
 */
export interface AgentFeature<O extends object = Record<string, unknown>> {
  /** The top-level key of an agent manifest that configures it (`tasks`, `scheduled`). */
  readonly key: string;
  /** Paths the feature owns on an agent; a capability endpoint may not take one (MF1306). */
  readonly routePrefixes: readonly string[];
  /** Keys the format accepts but the feature does not serve yet. */
  readonly pending?: readonly PendingKey[];
  /** The `serve()` options the feature consumes. @defaultValue none */
  readonly optionKeys?: readonly (keyof O & string)[];
  /** Whether this agent uses the feature. @defaultValue always, once `build` exists */
  enabled?(agent: AgentSpec): boolean;
  /** Adds the feature's paths and schemas to the agent's OpenAPI document, byte-stable. */
  openapi?(agent: AgentSpec, parts: OpenApiParts): void;
  /** Builds the running part; absent while the feature exists only as reserved routes and pending keys. */
  build?(options: O, services: FeatureServices): Promise<FeatureBuild>;
}
