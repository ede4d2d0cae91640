/**
 * The composition root of a served agent: a component plus the features its manifest enables, each
 * built from the feature list with the services they share.
 */
import { serveComponent, type CapabilityTypes, type ComponentExtension, type ComponentOptions, type RunningComponent } from "../component/index.js";
import { defaultRegistry } from "../discovery/index.js";
import { createOrchestrationExtension } from "../orchestration/index.js";
import type { ComponentSpec } from "../spec/index.js";
import { createLogger } from "../telemetry/index.js";
import type { AgentTaskTypes } from "../tasks/feature.js";
import type { FeatureServices } from "./feature.js";
import { AGENT_FEATURES, agentOpenApi, type AgentFeatureOptions } from "./features.js";

/** A generated agent's `serve()` options: the component's, flat, plus each feature's own. */
export type AgentServeOptions<C extends CapabilityTypes, T extends AgentTaskTypes> = ComponentOptions<C> & AgentFeatureOptions<T>;

const FEATURE_OPTION_KEYS: ReadonlySet<string> = new Set(AGENT_FEATURES.flatMap((feature) => feature.optionKeys ?? []));

export async function serveAgent<C extends CapabilityTypes, T extends AgentTaskTypes>(
  spec: ComponentSpec,
  usedSpecs: readonly ComponentSpec[],
  serveOptions: AgentServeOptions<C, T>,
): Promise<RunningComponent> {
  // What is left once the features' keys are out is exactly ComponentOptions<C>; TypeScript cannot
  // see that through a generic intersection, hence the one cast.
  const options = Object.fromEntries(Object.entries(serveOptions).filter(([key]) => !FEATURE_OPTION_KEYS.has(key))) as unknown as ComponentOptions<C>;
  const extensions = options.extensions ?? [];
  const agent = spec.agent;
  if (agent === undefined) return serveComponent<C>(spec, { ...options, extensions });

  const registry = options.registry ?? defaultRegistry();
  const services: FeatureServices = {
    spec,
    agent,
    usedSpecs,
    orchestration: createOrchestrationExtension(spec, { ...serveOptions.orchestration, components: usedSpecs }),
    registry,
    log: (component) => createLogger({ service: spec.name, component }),
    env: process.env,
  };
  const added: ComponentExtension[] = [{ name: "openapi", openapi: agentOpenApi(agent) }];
  let healthOnly = false;
  for (const feature of AGENT_FEATURES) {
    if (feature.build === undefined || feature.enabled?.(agent) === false) continue;
    const built = await feature.build(serveOptions as never, services);
    added.push(built.extension);
    healthOnly ||= built.healthOnly === true;
  }
  return serveComponent<C>(spec, { ...options, registry, healthOnly, extensions: [...added, ...extensions] });
}
