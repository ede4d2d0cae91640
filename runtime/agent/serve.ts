/**
 * The composition root of a served agent: a component plus the features its manifest enables, each
 * built from the feature list with the services they share.
 */
import { serveComponent, type CapabilityTypes, type ComponentExtension, type ComponentOptions, type RunningComponent } from "../component/index.js";
import { defaultRegistry } from "../discovery/index.js";
import { createLlmProvider, resolveLlmConfig, type LlmProvider } from "../llm/index.js";
import { createOrchestrationExtension } from "../orchestration/served.js";
import type { AgentSpec, ComponentSpec } from "../spec/index.js";
import { createLogger } from "../telemetry/index.js";
import type { AgentTaskTypes } from "../tasks/index.js";
import { createFeatureEvents, type AgentFeature, type FeatureServices } from "../feature/index.js";
import { AGENT_FEATURES, agentOpenApi, type AgentFeatureOptions } from "./features.js";

/** A generated agent's `serve()` options: the component's, flat, plus each feature's own. */
export type AgentServeOptions<C extends CapabilityTypes, T extends AgentTaskTypes> = ComponentOptions<C> & AgentFeatureOptions<T>;

/** The agent's language model: the `llm` option, else the environment, with the manifest's model; none is fine. */
function agentLlm(option: AgentServeOptions<never, never>["llm"], agent: AgentSpec, env: NodeJS.ProcessEnv): LlmProvider | undefined {
  if (option === false) return undefined;
  if (option !== undefined && "complete" in option) return option;
  const model = agent.orchestration.natural?.model;
  const config = resolveLlmConfig({ ...(option === undefined ? {} : { option }), env, ...(model === undefined ? {} : { manifestModel: model }) });
  return config === undefined ? undefined : createLlmProvider(config);
}

/**
 * Serves an agent: its component plus each enabled feature of `features` (the shipped list unless a
 * test or an embedding passes its own, the same list its spec was loaded with).
 */
export async function serveAgent<C extends CapabilityTypes, T extends AgentTaskTypes>(
  spec: ComponentSpec,
  usedSpecs: readonly ComponentSpec[],
  serveOptions: AgentServeOptions<C, T>,
  features: readonly AgentFeature<never>[] = AGENT_FEATURES,
): Promise<RunningComponent> {
  const featureKeys: ReadonlySet<string> = new Set(features.flatMap((feature) => feature.optionKeys ?? []));
  // What is left once the features' keys are out is exactly ComponentOptions<C>; TypeScript cannot
  // see that through a generic intersection, hence the one cast.
  const options = Object.fromEntries(Object.entries(serveOptions).filter(([key]) => !featureKeys.has(key))) as unknown as ComponentOptions<C>;
  const extensions = options.extensions ?? [];
  const agent = spec.agent;
  if (agent === undefined) return serveComponent<C>(spec, { ...options, extensions });

  const registry = options.registry ?? defaultRegistry();
  const llm = agentLlm(serveOptions.llm, agent, process.env);
  const log = (component: string) => createLogger({ service: spec.name, component });
  if (agent.orchestration.natural !== undefined && llm === undefined && serveOptions.orchestration?.planner === undefined) {
    log("orchestration").warn("natural mode has no language model: POST /orchestrate/natural answers 503 LLM_UNAVAILABLE until one is configured");
  }
  const services: FeatureServices = {
    spec,
    agent,
    usedSpecs,
    orchestration: createOrchestrationExtension(spec, {
      ...(llm === undefined ? {} : { llm }),
      componentName: spec.name,
      ...serveOptions.orchestration,
      components: usedSpecs,
    }),
    registry,
    log,
    env: process.env,
    llm,
    events: createFeatureEvents(log("features")),
  };
  const added: ComponentExtension[] = [{ name: "openapi", openapi: agentOpenApi(agent, features) }];
  let healthOnly = false;
  for (const feature of features) {
    if (feature.build === undefined || feature.enabled?.(agent) === false) continue;
    const built = await feature.build(serveOptions as never, services);
    added.push(built.extension);
    healthOnly ||= built.healthOnly === true;
  }
  return serveComponent<C>(spec, { ...options, registry, healthOnly, extensions: [...added, ...extensions] });
}
