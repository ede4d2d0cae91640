/**
 * The orchestrator: one executor, one resolver, one caller and the hooks, shared by every front end
 * (predefined workflow, custom, YAML, natural). Each request goes through the same pipeline:
 * before_planning hooks → plan → after_planning hooks (may replace the plan) → execute →
 * after_execution hooks → synthesis (when asked) → after_synthesis hooks → execution record.
 */
import { randomUUID } from "node:crypto";
import { currentScope } from "../context/index.js";
import { defaultRegistry } from "../discovery/index.js";
import { toManifoldError } from "../errors/index.js";
import { llmUnavailable } from "../llm/index.js";
import { createCaller } from "../outbound/index.js";
import { createLogger } from "../telemetry/index.js";
import { readCatalog, type CatalogComponent } from "./catalog.js";
import { customResponse, parseCustomBody } from "./custom.js";
import { createExecutor, type ExecuteOptions, type ExecutionResult } from "./executor.js";
import { checkHooks, runHooks, type HookOutcome } from "./hooks.js";
import { planWaiting, type Approvals } from "./approval.js";
import { planFromCustom, planFromWorkflow, type Plan, type PlanMode } from "./plan.js";
import { createExecutionStore, executionDebugEnabled, type ExecutionRecord, type ExecutionStore } from "./records/index.js";
import { createResolver } from "./resolver.js";
import { checkReplacement, configureNatural, type NaturalSetup } from "./natural/configure.js";
import type { RecordCall } from "./natural/record.js";
import { checkWorkflowInputs, planOfDefinition, resolveOutputs, resultScope, stepsOfDefinition } from "./workflow.js";

export type {
  NaturalRunResult,
  Orchestrator,
  OrchestratorOptions,
  Planner,
  RunOptions,
  SynthesisInput,
  Synthesiser,
  SynthesiserOptions,
  WorkflowRunResult,
} from "./orchestrator-types.js";
import type { Orchestrator, OrchestratorOptions, Paused, RunOptions, WorkflowRunResult } from "./orchestrator-types.js";

interface PipelineRequest {
  readonly mode: PlanMode;
  readonly workflow?: string;
  readonly request: unknown;
  readonly plan: () => Plan | Promise<Plan>;
  readonly execute: ExecuteOptions;
  /** Checks an after_planning hook's replacement beyond its shape (natural mode: against the catalog). */
  readonly checkReplacement?: (plan: Plan) => Promise<Plan>;
  readonly record?: RecordCall;
  readonly outputs?: (plan: Plan, result: ExecutionResult) => Record<string, unknown>;
  readonly options: RunOptions;
}

interface PipelineResult extends Paused {
  readonly result: ExecutionResult;
  readonly plan: Plan;
  readonly outputs?: Record<string, unknown>;
  readonly synthesis?: unknown;
  readonly hooks: readonly HookOutcome[];
}

const statusOf = { completed: "success", failed: "failed", interrupted: "interrupted" } as const;

function resolveStore(option: ExecutionStore | boolean | undefined, env: NodeJS.ProcessEnv): { store: ExecutionStore | undefined; owned: boolean } {
  if (typeof option === "object") return { store: option, owned: false };
  const enabled = option ?? executionDebugEnabled(env);
  return enabled ? { store: createExecutionStore({ env }), owned: true } : { store: undefined, owned: false };
}

export function createOrchestrator(options: OrchestratorOptions = {}): Orchestrator {
  const { components = [], registry, timeoutMs = 30_000, concurrency = 10, backoff, hooks = [], env = process.env } = options;
  const log = options.log ?? createLogger({ component: "orchestration" });
  checkHooks(hooks);
  const resolve =
    options.resolve ??
    createResolver({ components, ...(options.baseUrls === undefined ? {} : { baseUrls: options.baseUrls }), ...(registry === undefined ? {} : { registry }) });
  // The caller's default transport (undici keep-alive), not fetch: a step's call is the executor's inner loop (see README, Benchmark).
  const caller = options.caller ?? createCaller({ token: options.token, headers: options.headers, timeoutMs, log, env, agentName: options.componentName });
  const executor = createExecutor({ resolve, caller, concurrency, defaultTimeoutMs: timeoutMs, log, ...(backoff === undefined ? {} : { backoff }) });
  const { store, owned } = resolveStore(options.executionStore, env);
  const fullCatalog = (): Promise<CatalogComponent[]> => readCatalog(registry ?? defaultRegistry(), components);
  const natural: NaturalSetup = configureNatural(options, fullCatalog, env);
  const { synthesiser } = natural;

  const record = async (entry: ExecutionRecord): Promise<void> => {
    try {
      await store?.save(entry);
    } catch (error) {
      // Debug records never fail the request they describe.
      log.warn(`execution record ${entry.plan_id} could not be saved`, { error });
    }
  };

  let approvals: Approvals | undefined;

  /** The execution record of a run that finished, paused, or (with `failure`) stopped on an error. */
  const recordRun = async (
    ran: Plan,
    result: Pick<ExecutionResult, "status" | "steps">,
    outcomes: HookOutcome[],
    startedAt: string,
    mode: PlanMode,
    workflow: string | undefined,
    failure?: ExecutionRecord["error"],
  ) => {
    if (store === undefined) return;
    const conversationId = currentScope()?.conversationId;
    await record({
      plan_id: ran.plan_id,
      ...(workflow === undefined ? {} : { workflow }),
      ...(conversationId === undefined ? {} : { conversation_id: conversationId }),
      mode,
      status: statusOf[result.status],
      plan: ran,
      steps: result.steps,
      hooks: outcomes,
      ...(failure === undefined ? {} : { error: failure }),
      started_at: startedAt,
      finished_at: new Date().toISOString(),
    });
  };

  const pipeline = async ({
    mode,
    workflow,
    request,
    plan: makePlan,
    execute,
    outputs: makeOutputs,
    checkReplacement: checkReplaced,
    record: recordCall,
    options: run,
  }: PipelineRequest): Promise<PipelineResult> => {
    const startedAt = new Date().toISOString();
    const outcomes: HookOutcome[] = [];
    const signal = run.signal;
    const base = { mode, ...(workflow === undefined ? {} : { workflow }), request, ...(signal === undefined ? {} : { signal }) };
    let plan: Plan | undefined;
    let result: ExecutionResult | undefined;
    try {
      if (run.synthesise === true && synthesiser === undefined) throw llmUnavailable("ai_synthesis");
      const { resume } = run;
      if (resume !== undefined) plan = resume.plan;
      else {
        if (hooks.length > 0) await runHooks(hooks, { ...base, phase: "before_planning" }, outcomes, log);
        plan = await makePlan();
        if (hooks.length > 0) {
          const replaced = await runHooks(hooks, { ...base, phase: "after_planning", plan }, outcomes, log);
          if (replaced !== undefined) plan = checkReplaced === undefined ? replaced : await checkReplaced(replaced);
        }
      }
      const ran = plan;
      // Human approval, after the planning hooks (a required hook that rejects stops the run first).
      const context = run.approvalContext ?? { request_mode: "non_streaming" };
      if (approvals?.planApproval(mode) === true && resume?.planApproved !== true) {
        result = planWaiting(ran);
        const paused = await approvals.pause({
          type: "plan",
          mode,
          ...(workflow && { workflow }),
          request,
          synthesise: run.synthesise === true,
          plan: ran,
          result,
          reason: "the plan waits for approval",
          sensitive_matches: [],
          context,
        });
        await recordRun(ran, result, outcomes, startedAt, mode, workflow);
        return { result, plan: ran, hooks: outcomes, paused };
      }
      const gate = approvals?.gate(mode, new Set(resume?.approved ?? []));
      const onFailure = approvals?.onFailure(mode);
      result = await executor.execute(ran, {
        ...execute,
        mode,
        ...(signal === undefined ? {} : { signal }),
        ...(workflow === undefined ? {} : { workflow }),
        ...(run.onStep === undefined ? {} : { onStep: run.onStep }),
        ...(gate && { gate }),
        ...(onFailure && { onFailure }),
        ...(resume && { completed: resume.completed }),
        ...(resume?.parameters && { parameters: new Map(Object.entries(resume.parameters)) }),
      });
      if (result.interrupt !== undefined && approvals !== undefined) {
        const { reason, sensitive_matches } = result.interrupt;
        const paused = await approvals.pause({
          type: result.interrupt.error === undefined ? "step" : "error",
          mode,
          ...(workflow && { workflow }),
          request,
          synthesise: run.synthesise === true,
          plan: ran,
          result,
          reason,
          sensitive_matches,
          context,
        });
        await recordRun(ran, result, outcomes, startedAt, mode, workflow);
        return { result, plan: ran, hooks: outcomes, paused };
      }
      const outputs = makeOutputs?.(ran, result);
      const withResult = { ...base, plan: ran, result, ...(outputs === undefined ? {} : { outputs }) };
      if (hooks.length > 0) await runHooks(hooks, { ...withResult, phase: "after_execution" }, outcomes, log);
      let synthesis: unknown;
      if (run.synthesise === true && synthesiser !== undefined) {
        synthesis = await synthesiser(
          { mode, ...(workflow === undefined ? {} : { workflow }), request, plan: ran, result, ...(outputs === undefined ? {} : { outputs }) },
          {
            ...(signal === undefined ? {} : { signal }),
            ...(run.onChunk === undefined ? {} : { onChunk: run.onChunk }),
            ...(recordCall && { record: recordCall }),
          },
        );
        if (hooks.length > 0) await runHooks(hooks, { ...withResult, phase: "after_synthesis", synthesis }, outcomes, log);
      }
      await recordRun(ran, result, outcomes, startedAt, mode, workflow);
      return { result, plan: ran, ...(outputs === undefined ? {} : { outputs }), ...(synthesis === undefined ? {} : { synthesis }), hooks: outcomes };
    } catch (thrown) {
      if (plan !== undefined) {
        const error = toManifoldError(thrown);
        const status = signal?.aborted === true ? "interrupted" : "failed";
        await recordRun(plan, { status, steps: result?.steps ?? [] }, outcomes, startedAt, mode, workflow, {
          code: error.code,
          message: error.expose ? error.message : "internal error",
        });
      }
      throw thrown;
    }
  };

  const workflowResult = (name: string, { result, outputs = {}, synthesis, hooks: outcomes, paused }: PipelineResult): WorkflowRunResult => ({
    ...result,
    workflow: name,
    outputs,
    ...(synthesis === undefined ? {} : { synthesis }),
    hooks: outcomes,
    ...(paused === undefined ? {} : { paused }),
  });

  const catalog = async (): Promise<CatalogComponent[]> => {
    const all = await fullCatalog();
    return all.map((c) => ({ ...c, capabilities: c.capabilities.filter((wire) => !wire.internal) }));
  };

  /** The request's id and what hears of each model call: its LLM debug recorder (when records are on) and the run's observer. */
  const requestScope = (observer: RecordCall | undefined): { requestId: string; record: RecordCall | undefined } => {
    const scope = currentScope();
    const requestId = scope?.requestId ?? randomUUID();
    const debug = natural.recorder(requestId, scope?.originalRequestId);
    const record: RecordCall | undefined =
      debug === undefined || observer === undefined
        ? (debug ?? observer)
        : (call) => {
            debug(call);
            observer(call);
          };
    return { requestId, record };
  };

  return {
    resolve,
    executor,
    setToken: (token) => caller.setToken(token),
    useApprovals: (given) => {
      approvals = given;
    },
    hasPlanner: natural.planner !== undefined,
    hasSynthesiser: synthesiser !== undefined,

    runWorkflow: async (spec, inputs, run = {}) => {
      const checked = checkWorkflowInputs(spec, inputs);
      const mode = run.mode ?? "workflow";
      const { record } = run.synthesise === true ? requestScope(run.onModelCall) : { record: undefined };
      const done = await pipeline({
        ...(record && { record }),
        mode,
        workflow: spec.name,
        request: checked,
        plan: () => planFromWorkflow(spec, checked, mode),
        execute: { inputs: checked, syntax: "dollar" },
        outputs: (_plan, result) => resolveOutputs(spec, resultScope(checked, result)),
        options: run,
      });
      return workflowResult(spec.name, done);
    },

    runDefined: async (definition, input, run = {}) => {
      const checkedSteps = stepsOfDefinition(definition);
      const done = await pipeline({
        mode: "workflow",
        workflow: definition.name,
        request: input,
        plan: () => planOfDefinition(checkedSteps, input),
        execute: { inputs: input, syntax: "braces" },
        outputs: (_plan, result) => Object.fromEntries(result.steps.filter((s) => s.status === "completed").map((s) => [s.step_id, s.output])),
        options: run,
      });
      return workflowResult(definition.name, done);
    },

    runCustom: async (body, run = {}) => {
      const steps = parseCustomBody(body);
      // Literal parameters, run one at a time in order: a failed step never stops the next one.
      const done = await pipeline({
        mode: "custom",
        request: body,
        plan: () => planFromCustom(steps, body),
        execute: { syntax: "none", concurrency: 1 },
        options: run,
      });
      return done.paused === undefined ? customResponse(done.result) : { ...customResponse(done.result), paused: done.paused };
    },

    runNatural: async (request, run = {}) => {
      const { planner } = natural;
      if (planner === undefined) throw llmUnavailable("natural mode");
      const { requestId, record } = requestScope(run.onModelCall);
      let regenerations = 0;
      const done = await pipeline({
        mode: "natural",
        request,
        plan: async () => {
          const planned = await planner(request, { catalog, ...(run.signal && { signal: run.signal }), ...(record && { record }) });
          regenerations = planned.regenerations;
          return planned.plan;
        },
        execute: { syntax: "braces" },
        checkReplacement: async (plan) => checkReplacement(plan, await fullCatalog()),
        ...(record && { record }),
        options: run,
      });
      return {
        ...done.result,
        plan: done.plan,
        request_id: requestId,
        regenerations,
        ...(done.synthesis === undefined ? {} : { synthesis: done.synthesis }),
        hooks: done.hooks,
        ...(done.paused === undefined ? {} : { paused: done.paused }),
      };
    },

    catalog,
    close: async () => {
      if (owned) await store?.close();
      await natural.close();
    },
  };
}
