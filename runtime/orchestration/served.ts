/**
 * Orchestration as the runtime itself imports it: everything the package's `runtime/orchestration`
 * entry exports (index.ts) except natural mode's plan check, which an agent loads with its first plan.
 * Runtime modules import this file, never index.ts, so serving an agent does not load the checker at
 * start (bench:startup counts the modules). See README.md beside this file.
 */
export {
  checkPlan,
  findCycle,
  newPlanId,
  planFromCustom,
  planFromWorkflow,
  type CustomStep,
  type OnError,
  type Plan,
  type PlanMode,
  type PlanStep,
} from "./plan.js";
export { compileCached, compileValue, type Compiled, type CompiledValue, type ExpressionScope, type ExpressionSyntax, type Reference } from "./expressions.js";
export {
  createExecutor,
  wasNeverSent,
  type ExecuteOptions,
  type ExecutionResult,
  type Executor,
  type ExecutorOptions,
  type Resolve,
  type RunInterrupt,
  type RunStatus,
  type StepError,
  type StepResult,
  type StepRound,
  type StepStatus,
  type Target,
  type InvokeOptions,
} from "./executor.js";
export { createBackoff, isRetryable, type Backoff, type BackoffOptions } from "./retry.js";
export { createResolver, defaultEndpoint, type ResolverOptions } from "./resolver.js";
export {
  HOOK_PHASES,
  checkHooks,
  runHooks,
  type HookContext,
  type HookDecision,
  type HookMode,
  type HookOutcome,
  type HookPhase,
  type PipelineHook,
} from "./hooks.js";
export {
  DEFAULT_SECTION_BYTES,
  contextPrompt,
  contextSourceOnFirstUse,
  type ContextGathered,
  type ContextRequest,
  type ContextSection,
  type ContextSource,
  type RunSettled,
  type SettledListener,
} from "./context.js";
export { readCatalog, checkContextOf, type CatalogCheckContext, type CatalogComponent } from "./catalog.js";
export { MAX_CUSTOM_STEPS, customResponse, parseCustomBody, type CustomResponse, type CustomStepEntry } from "./custom.js";
export { checkWorkflowInputs, resolveOutputs, type WorkflowDefinition, type WorkflowStepDefinition } from "./workflow.js";
export type { HealthCheck, HealthCheckOptions, HealthCheckResult } from "./health-check.js";
export {
  createOrchestrator,
  type NaturalRunResult,
  type Orchestrator,
  type OrchestratorOptions,
  type Planner,
  type ResumeRun,
  type RunOptions,
  type SynthesisInput,
  type Synthesiser,
  type WorkflowRunResult,
} from "./orchestrator.js";
export {
  DEFAULT_EXECUTION_TTL_MS,
  EXECUTION_DEBUG_ENV,
  createExecutionStore,
  createMemoryExecutionStore,
  createRedisExecutionStore,
  executionDebugEnabled,
  type ExecutionRecord,
  type ExecutionStatus,
  type ExecutionStore,
  type ExecutionStoreOptions,
  type HitlRecordState,
  type InterceptorDecision,
  type LifecycleEvent,
  type ListOptions,
  type MemoryExecutionStoreOptions,
  type RecordedRound,
  type RecordedStep,
  type RedisExecutionStoreOptions,
} from "./records/index.js";
export {
  ACCEPT,
  CONTINUE,
  afterStep,
  beforeStep,
  checkInterceptors,
  type AfterStepDecision,
  type Awaitable,
  type BeforeStepDecision,
  type InterceptorState,
  type StepContext,
  type StepFail,
  type StepInterceptor,
  type StepOutcomeContext,
  type StepPause,
} from "./interceptors.js";
export {
  afterExecution,
  afterPlan,
  type AfterExecutionDecision,
  type AfterPlanDecision,
  type ExecutionContext,
  type Interceptor,
  type PipelineFail,
  type PipelinePause,
  type PlanContext,
  type PlanProposal,
  type RequestContext,
  type RunRequest,
} from "./pipeline-interceptors.js";
export { waitingResult } from "./pipeline.js";
export { defineWorkflow, runWorkflow, type DefinedWorkflow, type WorkflowRunOptions } from "./front-ends.js";
export {
  createWorkflowEngine,
  invalidWorkflow,
  type LoadedWorkflow,
  type WorkflowCheck,
  type WorkflowDiagnostic,
  type WorkflowEngine,
  type WorkflowEngineOptions,
} from "./yaml-engine.js";
export {
  createOrchestrationExtension,
  type OrchestrationExtension,
  type OrchestrationOptions,
  type ResumedListener,
  type RunWorkflowByNameOptions,
} from "./extension.js";
export {
  createWorkflowClient,
  type NaturalClient,
  type NaturalResponse,
  type OrchestrationClient,
  type WorkflowCallOptions,
  type WorkflowClient,
  type WorkflowResponse,
  type WorkflowTypes,
} from "./client.js";
export { PLAN_CHECK } from "./natural/adaptive.js";
export { trimResults, type TrimResult } from "./natural/trim.js";
export { FAILURE_EVIDENCE_LIMIT_BYTES, projectFailure, type ProjectedFailure } from "./natural/failure-evidence.js";
export { RECOVERY, recoveryAnalysis, type RecoveryAnalysis } from "./natural/recovery.js";
export { createCallRecorder, type CallRecord, type RecordCall, type RecorderScope } from "./natural/record.js";
// The request limit a scheduled run's dispatch must outlast (runtime/scheduling/settings.ts).
export { DEFAULT_ORCHESTRATION_TIMEOUT_MS, ONE_SHOT, ORCHESTRATION_TIMEOUT_ENV, readAdaptiveSettings, type AdaptiveSettings } from "./natural/adaptive.js";
export type { NaturalProgress } from "./natural/run-context.js";
export { naturalConfidence } from "./http.js";
