/**
 * The seam every agent feature plugs into. A feature is one folder (`runtime/tasks/`,
 * `runtime/chat/`, …) whose `feature.ts` describes it as data, plus one entry in the feature list
 * (`runtime/agent/features.ts`). Its format half (`ManifestFeature`: manifest key, schema fragment,
 * normaliser, checks, reserved routes) is what the manifest layer reads; this adds the serving half:
 * the OpenAPI paths, the `serve()` options it takes, and a lazy `build`. A descriptor imports no
 * other feature: what it needs of the agent comes through `FeatureServices`.
 */
import type { ComponentExtension } from "../component/index.js";
import type { Registry } from "../discovery/index.js";
import type { ManifestFeature } from "../manifest/index.js";
import type { AgentSpec, ComponentSpec, OpenApiParts } from "../spec/index.js";
import type { LlmProvider } from "../llm/index.js";
import type { Logger } from "../telemetry/index.js";
import type { FeatureEvents } from "./events.js";

/**
 * What `serveAgent` shares with every feature it builds. A feature that provides a service to the
 * others declares it here by module augmentation in its own descriptor (orchestration adds
 * `orchestration`), so this seam names no feature.
 */
export interface FeatureServices {
  readonly spec: ComponentSpec;
  readonly agent: AgentSpec;
  /** Specs of the components the agent `uses`, as its generated module embeds them. */
  readonly usedSpecs: readonly ComponentSpec[];
  /** Where the agent registers; features that look other components up use it too. */
  readonly registry: Registry | false;
  /** A JSON logger for one part of the agent (`tasks`, `scheduled`). */
  log(component: string): Logger;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The agent's language model (unbudgeted: a feature's background calls are its own), when it has one. */
  readonly llm: LlmProvider | undefined;
  /** Events between features (chat's finished turns for memory, …), declared where they are emitted. */
  readonly events: FeatureEvents;
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
export interface AgentFeature<O extends object = Record<string, unknown>> extends ManifestFeature {
  /** The `serve()` options the feature consumes. @defaultValue none */
  readonly optionKeys?: readonly (keyof O & string)[];
  /** Whether this agent uses the feature. @defaultValue always, once `build` exists */
  enabled?(agent: AgentSpec): boolean;
  /** Adds the feature's paths and schemas to the agent's OpenAPI document, byte-stable. */
  openapi?(agent: AgentSpec, parts: OpenApiParts): void;
  /** Builds the running part; absent while the feature exists only as reserved routes and pending keys. */
  build?(options: O, services: FeatureServices): Promise<FeatureBuild>;
}

/** The format half of each feature of a list, for the manifest layer (it takes the list as a parameter). */
export type { ManifestFeature, PendingKey } from "../manifest/index.js";
