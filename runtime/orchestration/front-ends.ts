/**
 * The one-call forms of the predefined-workflow front end, for code that runs a workflow without
 * serving an agent: `runWorkflow(spec, inputs, options)` and the seed's programmatic
 * `defineWorkflow({name, steps}).run(input, options)`. Pass `orchestrator` to reuse one (its caller,
 * resolver and discovery cache) across runs; otherwise each call makes its own from the options.
 */
import type { WorkflowSpec } from "../spec/index.js";
import { createOrchestrator, type Orchestrator, type OrchestratorOptions, type RunOptions, type WorkflowRunResult } from "./orchestrator.js";
import type { PlanStep } from "./plan.js";
import { stepsOfDefinition, type WorkflowDefinition } from "./workflow.js";

export interface WorkflowRunOptions extends OrchestratorOptions, RunOptions {
  /** Runs on this orchestrator; the other orchestrator options are then ignored. */
  readonly orchestrator?: Orchestrator;
}

async function withOrchestrator<T>(options: WorkflowRunOptions, run: (orchestrator: Orchestrator, runOptions: RunOptions) => Promise<T>): Promise<T> {
  const { orchestrator: given, signal, synthesise, onStep } = options;
  const runOptions: RunOptions = {
    ...(signal === undefined ? {} : { signal }),
    ...(synthesise === undefined ? {} : { synthesise }),
    ...(onStep === undefined ? {} : { onStep }),
  };
  if (given !== undefined) return run(given, runOptions);
  const orchestrator = createOrchestrator(options);
  try {
    return await run(orchestrator, runOptions);
  } finally {
    await orchestrator.close();
  }
}

/** Runs a checked workflow (a manifest's, or a YAML engine's); resolves with status `failed` when a step fails it. */
export function runWorkflow(spec: WorkflowSpec, inputs: unknown, options: WorkflowRunOptions = {}): Promise<WorkflowRunResult> {
  return withOrchestrator(options, (orchestrator, run) => orchestrator.runWorkflow(spec, inputs, run));
}

export interface DefinedWorkflow {
  readonly name: string;
  /** The checked plan steps (templates kept, implicit dependencies added). */
  readonly steps: readonly PlanStep[];
  /** `outputs` holds each completed step's output by step id. */
  run(input: unknown, options?: WorkflowRunOptions): Promise<WorkflowRunResult>;
}

/**
 * A workflow in code, with the seed's templates: `{{input}}` / `{{input.field}}` read the run's
 * input, `{{<step id>.response.data.field}}` a step's output. Checked now (INVALID_WORKFLOW with
 * pointers); a step a template reads becomes a dependency.
 *
 * ```ts
 * const trip = defineWorkflow({ name: "trip", steps: [
 *   { id: "geo", tool: "geocoding-service", capability: "geocode_location", parameters: { location: "{{input.city}}" } },
 *   { id: "weather", tool: "weather-service", capability: "get_current_weather", dependsOn: ["geo"],
 *     parameters: { lat: "{{geo.response.data.lat}}", lon: "{{geo.response.data.lon}}" } },
 * ] });
 * const result = await trip.run({ city: "Kyoto" }, { baseUrls });
 * ```
 */
export function defineWorkflow(definition: WorkflowDefinition): DefinedWorkflow {
  const steps = stepsOfDefinition(definition);
  return {
    name: definition.name,
    steps,
    run: (input, options = {}) => withOrchestrator(options, (orchestrator, run) => orchestrator.runDefined(definition, input, run)),
  };
}
