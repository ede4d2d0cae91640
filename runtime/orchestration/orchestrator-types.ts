/**
 * The orchestrator's public types: its options, what a run takes and answers, and the two seams a
 * language model fills (the planner and the synthesiser). The orchestrator itself is orchestrator.ts.
 */
import type { HealthCheck } from "./health-check.js";
import type { LlmDebugStore, LlmProvider } from "../llm/index.js";
import type { Caller, TokenSource } from "../outbound/index.js";
import type { WorkflowSpec } from "../spec/index.js";
import type { Logger } from "../telemetry/index.js";
import type { CatalogComponent } from "./catalog.js";
import type { ContextSource, SettledListener } from "./context.js";
import type { CustomResponse } from "./custom.js";
import type { ExecutionResult, Executor, Resolve, StepResult, StepRound } from "./executor.js";
import type { HookOutcome, PipelineHook } from "./hooks.js";
import type { InterceptorState } from "./interceptors.js";
import type { Interceptor, RequestContext } from "./pipeline-interceptors.js";
import type { Plan, PlanMode } from "./plan.js";
import type { ExecutionStore } from "./records/index.js";
import type { ResolverOptions } from "./resolver.js";
import type { BackoffOptions } from "./retry.js";
import type { Planned } from "./natural/planner.js";
import type { RecordCall } from "./natural/record.js";
import type { WorkflowDefinition } from "./workflow.js";
import type { AdaptiveSettings } from "./natural/adaptive.js";
import type { NaturalProgress } from "./natural/run-context.js";
import type { Clarification } from "./plan.js";
import type { LlmUsage } from "../llm/index.js";
import type { Clock } from "../util/index.js";

/**
 * Natural mode's seam: turns a request into a plan (parameters may use `{{…}}` templates). The
 * language-model planner (option `llm`) also says how many regenerations its plan needed.
 */
export type Planner = (request: string, catalog: readonly CatalogComponent[], signal?: AbortSignal) => Promise<Plan | Planned>;

export interface SynthesisInput {
  readonly mode: PlanMode;
  readonly workflow?: string;
  readonly request: unknown;
  readonly plan: Plan;
  readonly result: ExecutionResult;
  /** A workflow's resolved outputs. */
  readonly outputs?: Readonly<Record<string, unknown>>;
}

export interface SynthesiserOptions {
  readonly signal?: AbortSignal;
  /** Given: stream the answer, each piece of text passed here as it arrives. */
  readonly onChunk?: (text: string) => void;
  /** Told about every model call (the request's LLM debug record). */
  readonly record?: RecordCall;
}

/** Turns a run's results into prose (a language model); asked for with `ai_synthesis`. */
export type Synthesiser = (input: SynthesisInput, options: SynthesiserOptions) => Promise<unknown>;

/** Where LLM debug records go: a store, or `true` for the default one. */
export type LlmDebugOption = LlmDebugStore | boolean;

/** `components`, `baseUrls` and `registry` build the default resolver (and the catalog YAML workflows are checked against). */
export interface OrchestratorOptions extends Pick<ResolverOptions, "components" | "baseUrls" | "registry"> {
  /** Replaces the default resolver (specs + base URLs + discovery). */
  readonly resolve?: Resolve;
  /** Replaces the caller built from token/headers. */
  readonly caller?: Caller;
  /** Bearer token of step calls. @defaultValue `MANIFOLD_OAUTH_TOKEN`, else none */
  readonly token?: string | TokenSource;
  /** Propagated headers sent on every step call. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-attempt timeout of a step without its own. @defaultValue 30000 */
  readonly timeoutMs?: number;
  /** Most steps running at once in one run. @defaultValue 10 */
  readonly concurrency?: number;
  /** @defaultValue exponential with full jitter, 100 ms base, 5 s cap */
  readonly backoff?: BackoffOptions;
  readonly hooks?: readonly PipelineHook[];
  /** Asked around every run's plan, steps and execution, in order (README, Interceptors); `use` adds more. @defaultValue none */
  readonly interceptors?: readonly Interceptor[];
  /** Where execution records go; `true` creates the default store, `false` none. @defaultValue on only when `MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED=true` */
  readonly executionStore?: ExecutionStore | boolean;
  /**
   * The language model: natural mode's planner (plans checked against the live catalog, regenerated
   * up to `maxValidationRounds` times) and the synthesiser, unless `planner` / `synthesiser` replace them.
   */
  readonly llm?: LlmProvider;
  /**
   * The `effects: lasting` capabilities the language-model planner may see and plan (`component.capability`,
   * or true for all). @defaultValue the agent manifest's `orchestration.natural.allow_lasting_effects`, else none
   */
  readonly allowLastingEffects?: true | readonly string[];
  /**
   * Per used component, the only capabilities the language-model planner may see and plan (empty:
   * none); components not named are not limited. @defaultValue the agent manifest's `uses` entries
   * with `planner: false` or a list
   */
  readonly plannerCapabilities?: Readonly<Record<string, readonly string[]>>;
  /**
   * Natural mode's adaptive loop and per-request budgets (phases, semantic retries, model calls,
   * timeout, micro-resolution); `ONE_SHOT` turns the loop off. @defaultValue from `MANIFOLD_MAX_PHASES`,
   * `MANIFOLD_MAX_SEMANTIC_RETRIES`, `MANIFOLD_MAX_LLM_CALLS`, `MANIFOLD_ORCHESTRATION_TIMEOUT`, `MANIFOLD_RESULT_BUDGET_BYTES`
   */
  readonly adaptive?: Partial<AdaptiveSettings>;
  /** What the orchestration timeout is measured on. @defaultValue the system clock */
  readonly clock?: Clock;
  /** Regenerations of an invalid plan. @defaultValue `MANIFOLD_MAX_VALIDATION_ROUNDS`, else 2 */
  readonly maxValidationRounds?: number;
  /** Most bytes of step results in a synthesis prompt. @defaultValue natural mode: the request's result budget (`requestResultBudgetBytes`, 64 KiB); a workflow's `ai_synthesis`: 32 KiB */
  readonly synthesisBudgetBytes?: number;
  /** Where LLM debug records go; `true` creates the default store. @defaultValue on only when `MANIFOLD_LLM_DEBUG_ENABLED=true` */
  readonly llmDebug?: LlmDebugOption;
  /** The component whose calls these are (LLM debug records' `source_components`). @defaultValue "orchestrator" */
  readonly componentName?: string;
  readonly planner?: Planner;
  readonly synthesiser?: Synthesiser;
  /** @defaultValue a JSON logger for `orchestration` */
  readonly log?: Logger;
  /** @defaultValue process.env */
  readonly env?: NodeJS.ProcessEnv;
}

export interface RunOptions {
  /** Aborting interrupts the run: running steps are aborted, the others skipped. */
  readonly signal?: AbortSignal;
  /** Ask the synthesiser for a synthesis (LLM_UNAVAILABLE when there is none). @defaultValue false */
  readonly synthesise?: boolean;
  /** Given: the synthesis streams, each piece of text passed here as it arrives. */
  readonly onChunk?: (text: string) => void;
  /** Told after each step finishes, in completion order (a task reports progress with it). */
  readonly onStep?: (step: StepResult, done: number, total: number) => void;
  /** Told when each round of a step ends, with the parameters it was called with, before `onStep` for the last (chat's AI SDK stream shows them as a tool part's input). */
  readonly onRound?: (round: StepRound) => void;
  /** Told about every language-model call of the run (planning, synthesis): chat adds up its tokens by phase. */
  readonly onModelCall?: RecordCall;
  /** Natural mode: told when a further phase or a corrected retry starts (chat streams these as `progress`). */
  readonly onProgress?: (event: NaturalProgress) => void;
  /** Who asked and how the request is answered, for the interceptors (a checkpoint keeps it). @defaultValue non_streaming, no user context */
  readonly requestContext?: RequestContext;
  /** Continues a paused run: its plan as it was, without planning (its hooks, its after-plan interceptors) again. */
  readonly resume?: ResumeRun;
}

/** A paused run coming back: its plan as it was, and what it had done. */
export interface ResumeRun {
  readonly plan: Plan;
  /** Completed steps of the paused run: they are not run again. */
  readonly completed: readonly StepResult[];
  /** What the interceptors that paused it kept, handed back to every interceptor of the resumed run. */
  readonly state?: InterceptorState;
  /** The checkpoint whose decision resumes it (`approved`, `corrected`, `expired_approved`), for its execution record. */
  readonly checkpoint?: { readonly checkpoint_id: string; readonly decision?: string };
}

/** Set when an interceptor paused the run: what the request answers instead (HITL: a 202 body). */
export interface Paused {
  readonly paused?: unknown;
}

export interface WorkflowRunResult extends ExecutionResult, Paused {
  readonly workflow: string;
  /** The workflow's outputs (for a defined workflow: each completed step's output by id); absent values left out. */
  readonly outputs: Record<string, unknown>;
  readonly synthesis?: unknown;
  readonly hooks: readonly HookOutcome[];
}

export interface NaturalRunResult extends ExecutionResult, Paused {
  readonly plan: Plan;
  /** The request's id (its `X-Manifold-Request-ID`, else a new one). */
  readonly request_id: string;
  /** Plans the model had to regenerate before one checked. */
  readonly regenerations: number;
  /** Phases planned (1 unless the phase loop continued). */
  readonly phases: number;
  /** Set when the model asked the user instead of planning further: the answer is `needs_input`. */
  readonly clarification?: Clarification;
  /** Tokens by interaction type (`plan_generation`, `continuation_plan`, `error_analysis`, `micro_resolution`, `synthesis`). */
  readonly usage_by_phase: Readonly<Record<string, LlmUsage>>;
  /** Model calls the request made. */
  readonly llm_calls: number;
  readonly synthesis?: unknown;
  readonly hooks: readonly HookOutcome[];
}

export interface Orchestrator {
  readonly resolve: Resolve;
  readonly executor: Executor;
  readonly hasPlanner: boolean;
  readonly hasSynthesiser: boolean;
  /** Validates the inputs (INVALID_INPUT), runs the workflow; a failed run resolves with status `failed`. */
  runWorkflow(spec: WorkflowSpec, inputs: unknown, options?: RunOptions & { readonly mode?: "workflow" | "yaml" }): Promise<WorkflowRunResult>;
  /** Runs a programmatic workflow's checked steps with `{{…}}` templates. */
  runDefined(definition: WorkflowDefinition, input: unknown, options?: RunOptions): Promise<WorkflowRunResult>;
  /** Validates the body (INVALID_INPUT) and runs its steps in order; step failures are in the entries. */
  runCustom(body: unknown, options?: RunOptions): Promise<CustomResponse & Paused>;
  /** Needs a planner (INVALID_INPUT otherwise). */
  runNatural(request: string, options?: RunOptions): Promise<NaturalRunResult>;
  /** The catalog a planner sees: every known component, internal capabilities left out. */
  catalog(): Promise<CatalogComponent[]>;
  /**
   * GETs a component's `/health` through the steps' caller (same token and header resolution):
   * `healthy`, `degraded`, or `unhealthy` with the error (503, unreachable); NOT_FOUND for a component
   * with no base URL and no registry. Not called by the runs themselves (see the README).
   */
  healthCheck: HealthCheck;
  /** Replaces the outbound token (or source) for calls that start from now on; calls in flight keep theirs. Same as the caller's. */
  setToken(token: string | TokenSource | undefined): void;
  /** Adds interceptors after those given so far; they apply to every run that starts from now on. */
  use(...interceptors: readonly Interceptor[]): void;
  /** Adds planning-context sources (skills, memory) asked before each natural request's first plan. */
  useContext(...sources: readonly ContextSource[]): void;
  /** Tells `listener` about every run that settles (any mode), after its record is saved. */
  onSettled(listener: SettledListener): void;
  /** Releases the execution store when the orchestrator created it. */
  close(): Promise<void>;
}
