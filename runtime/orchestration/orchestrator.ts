/**
 * The orchestrator: one executor, one resolver, one caller, the hooks and the interceptors, shared by
 * every front end (predefined workflow, custom, YAML, natural). Each front end here turns its request
 * into a plan maker and hands it to the one pipeline (pipeline.ts).
 */
import { randomUUID } from "node:crypto";
import { createA2aTargets, type A2aTargets } from "../a2a-client/index.js";
import { ANONYMOUS, currentScope } from "../context/index.js";
import { defaultRegistry } from "../discovery/index.js";
import { llmUnavailable } from "../llm/index.js";
import { createMcpTargets, type McpTargets } from "../mcp/index.js";
import { createCaller } from "../outbound/index.js";
import { createLogger, getTelemetry } from "../telemetry/index.js";
import { readCatalog, type CatalogComponent } from "./catalog.js";
import { customResponse, parseCustomBody } from "./custom.js";
import { createExecutor, type Resolve } from "./executor.js";
import { createHealthCheck } from "./health-check.js";
import { checkHooks } from "./hooks.js";
import { checkInterceptors } from "./interceptors.js";
import { phaseOf, planFromCustom, planFromWorkflow, type Plan } from "./plan.js";
import { createNaturalRun, withNaturalRun, type NaturalRun } from "./natural/run-context.js";
import { checkContextSources, gatherContext } from "./context.js";
import { ManifoldError } from "../errors/index.js";
import { systemClock } from "../util/index.js";
import { runPipeline, type OrchestratorCore, type PipelineResult } from "./pipeline.js";
import type { PlanProposal } from "./pipeline-interceptors.js";
import { createExecutionStore, executionDebugEnabled, type ExecutionStore } from "./records/index.js";
import { createResolver } from "./resolver.js";
import { checkReplacement, configureNatural } from "./natural/configure.js";
import { failedFinal, type RecordCall } from "./natural/record.js";
import type { WorkflowSpec } from "../spec/index.js";
import { checkWorkflowInputs, planOfDefinition, resolveOutputs, resultScope, stepsOfDefinition, type WorkflowDefinition } from "./workflow.js";

export type {
  NaturalRunResult,
  Orchestrator,
  OrchestratorOptions,
  Planner,
  ResumeRun,
  RunOptions,
  SynthesisInput,
  Synthesiser,
  SynthesiserOptions,
  WorkflowRunResult,
} from "./orchestrator-types.js";
import type { NaturalRunResult, Orchestrator, OrchestratorOptions, RunOptions, WorkflowRunResult } from "./orchestrator-types.js";

function resolveStore(option: ExecutionStore | boolean | undefined, env: NodeJS.ProcessEnv): { store: ExecutionStore | undefined; owned: boolean } {
  if (typeof option === "object") return { store: option, owned: false };
  const enabled = option ?? executionDebugEnabled(env);
  return enabled ? { store: createExecutionStore({ env }), owned: true } : { store: undefined, owned: false };
}

/**
 * The spec's `orchestrator.construction.rejected`: a configuration that throws while an orchestrator
 * is built or extended is marked on the active span, else (construction mostly runs at start-up, in
 * no request) on a span of its own; the error is thrown on unchanged.
 */
function rejectedOnThrow<T>(operation: "create_orchestrator" | "use" | "use_context", build: () => T): T {
  try {
    return build();
  } catch (error) {
    const telemetry = getTelemetry();
    const attributes = { operation, reason: "invalid_configuration" };
    const emit = telemetry.activeEvents();
    if (emit !== undefined) emit("orchestrator.construction.rejected", attributes);
    else {
      const span = telemetry.startSpan("orchestrator.construction", { attributes: { operation } });
      span?.event("orchestrator.construction.rejected", attributes);
      span?.end("INVALID_INPUT");
    }
    throw error;
  }
}

/**
 * What a step's target is: the used `kind: mcp` components are reached through their sessions and the
 * used `kind: a2a` components by messages to their skills, never over HTTP; everything else through
 * the resolver (or the option's own `resolve`). `release()` gives the sessions and remote agents back.
 */
function stepTargets(options: OrchestratorOptions, env: NodeJS.ProcessEnv): { resolve: Resolve; release: () => Promise<void> } {
  const { components = [], registry, baseUrls } = options;
  const mcp: McpTargets = createMcpTargets(components, { env });
  const a2a: A2aTargets = createA2aTargets(components, { env, ...(baseUrls === undefined ? {} : { baseUrls }) });
  const release = async (): Promise<void> => {
    await mcp.release();
    await a2a.release();
  };
  if (options.resolve !== undefined) return { resolve: options.resolve, release };
  const http = createResolver({ components, ...(baseUrls === undefined ? {} : { baseUrls }), ...(registry === undefined ? {} : { registry }) });
  if (mcp.servers.length === 0 && a2a.size === 0) return { resolve: http, release };
  return { resolve: (component, capability) => mcp.target(component, capability) ?? a2a.target(component, capability) ?? http(component, capability), release };
}

export function createOrchestrator(options: OrchestratorOptions = {}): Orchestrator {
  return rejectedOnThrow("create_orchestrator", () => buildOrchestrator(options));
}

function buildOrchestrator(options: OrchestratorOptions): Orchestrator {
  const { components = [], registry, timeoutMs = 30_000, concurrency = 10, backoff, hooks = [], interceptors = [], env = process.env } = options;
  const log = options.log ?? createLogger({ component: "orchestration" });
  checkHooks(hooks);
  checkInterceptors(interceptors);
  const targets = stepTargets(options, env);
  const resolve = targets.resolve;
  // The caller's default transport (undici keep-alive), not fetch: a step's call is the executor's inner loop (see README, Benchmark).
  const caller = options.caller ?? createCaller({ token: options.token, headers: options.headers, timeoutMs, log, env, agentName: options.componentName });
  const executor = createExecutor({ resolve, caller, concurrency, defaultTimeoutMs: timeoutMs, log, ...(backoff === undefined ? {} : { backoff }) });
  const { store, owned } = resolveStore(options.executionStore, env);
  const fullCatalog = (): Promise<CatalogComponent[]> => readCatalog(registry ?? defaultRegistry(), components);
  const natural = configureNatural(options, fullCatalog, env);
  // Natural mode's plan check first: every other interceptor, and every hook, sees a checked plan.
  const allInterceptors = [...natural.interceptors, ...interceptors];
  checkInterceptors(allInterceptors);
  const core: OrchestratorCore = {
    hooks,
    interceptors: allInterceptors,
    executor,
    store,
    natural,
    fullCatalog,
    log,
    clock: options.clock ?? systemClock,
    contextSources: [],
    settled: [],
  };

  const healthCheck = createHealthCheck({
    caller,
    ...(options.baseUrls === undefined ? {} : { baseUrls: options.baseUrls }),
    ...(registry === undefined ? {} : { registry }),
  });

  return {
    resolve,
    executor,
    healthCheck,
    setToken: (token) => caller.setToken(token),
    use: (...more) =>
      rejectedOnThrow("use", () => {
        checkInterceptors([...core.interceptors, ...more]);
        core.interceptors.push(...more);
      }),
    useContext: (...sources) =>
      rejectedOnThrow("use_context", () => {
        checkContextSources([...core.contextSources, ...sources]);
        core.contextSources.push(...sources);
      }),
    onSettled: (listener) => {
      if (typeof listener !== "function") throw new TypeError("onSettled takes a function");
      core.settled.push(listener);
    },
    hasPlanner: natural.planner !== undefined,
    hasSynthesiser: natural.synthesiser !== undefined,
    runWorkflow: (spec, inputs, run = {}) => runWorkflow(core, spec, inputs, run),
    runDefined: (definition, input, run = {}) => runDefined(core, definition, input, run),
    runCustom: (body, run = {}) => runCustom(core, body, run),
    runNatural: (request, run = {}) => runNatural(core, request, run),
    catalog: () => visibleCatalog(core),
    close: async () => {
      if (owned) await store?.close();
      await natural.close();
      await targets.release();
    },
  };
}

/** The context sources' sections and evidence, on the run: its plans and synthesis read them. */
async function gatherInto(core: OrchestratorCore, run: NaturalRun, request: string): Promise<void> {
  const scope = currentScope();
  const { sections, evidence } = await gatherContext(
    core.contextSources,
    {
      requestId: run.requestId,
      request,
      identity: scope?.identity ?? ANONYMOUS,
      conversationId: scope?.conversationId,
      signal: run.signal,
      llm: core.natural.provider,
      record: run.record,
    },
    core.log,
  );
  run.context = sections;
  run.evidence = evidence;
}

/** The catalog a planner sees: internal capabilities left out. */
async function visibleCatalog(core: OrchestratorCore): Promise<CatalogComponent[]> {
  const all = await core.fullCatalog();
  return all.map((c) => ({ ...c, capabilities: c.capabilities.filter((wire) => !wire.internal) }));
}

/** The request's id and what hears of each model call: its LLM debug recorder (when records are on) and the run's observer. */
function requestScope(core: OrchestratorCore, observer: RecordCall | undefined): { requestId: string; record: RecordCall | undefined } {
  const scope = currentScope();
  const requestId = scope?.requestId ?? randomUUID();
  const debug = core.natural.recorder(requestId, scope?.originalRequestId);
  const record: RecordCall | undefined =
    debug === undefined || observer === undefined
      ? (debug ?? observer)
      : (call) => {
          debug(call);
          observer(call);
        };
  return { requestId, record };
}

function workflowResult(name: string, { result, outputs = {}, synthesis, hooks: outcomes, paused }: PipelineResult): WorkflowRunResult {
  return {
    ...result,
    workflow: name,
    outputs,
    ...(synthesis === undefined ? {} : { synthesis }),
    hooks: outcomes,
    ...(paused === undefined ? {} : { paused }),
  };
}

async function runWorkflow(
  core: OrchestratorCore,
  spec: WorkflowSpec,
  inputs: unknown,
  run: RunOptions & { readonly mode?: "workflow" | "yaml" },
): Promise<WorkflowRunResult> {
  const checked = checkWorkflowInputs(spec, inputs);
  const mode = run.mode ?? "workflow";
  const { record } = run.synthesise === true ? requestScope(core, run.onModelCall) : { record: undefined };
  const done = await runPipeline(core, {
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
}

async function runDefined(core: OrchestratorCore, definition: WorkflowDefinition, input: unknown, run: RunOptions): Promise<WorkflowRunResult> {
  const checkedSteps = stepsOfDefinition(definition);
  const done = await runPipeline(core, {
    mode: "workflow",
    workflow: definition.name,
    request: input,
    plan: () => planOfDefinition(checkedSteps, input),
    execute: { inputs: input, syntax: "braces" },
    outputs: (_plan, result) => Object.fromEntries(result.steps.filter((s) => s.status === "completed").map((s) => [s.step_id, s.output])),
    options: run,
  });
  return workflowResult(definition.name, done);
}

async function runCustom(core: OrchestratorCore, body: unknown, run: RunOptions): ReturnType<Orchestrator["runCustom"]> {
  const steps = parseCustomBody(body);
  // Literal parameters, run one at a time in order: a failed step never stops the next one.
  const done = await runPipeline(core, {
    mode: "custom",
    request: body,
    plan: () => planFromCustom(steps, body),
    execute: { syntax: "none", concurrency: 1 },
    options: run,
  });
  return done.paused === undefined ? customResponse(done.result) : { ...customResponse(done.result), paused: done.paused };
}

async function runNatural(core: OrchestratorCore, request: string, run: RunOptions): Promise<NaturalRunResult> {
  const { planner, settings } = core.natural;
  if (planner === undefined) throw llmUnavailable("natural mode");
  const { requestId, record } = requestScope(core, run.onModelCall);
  // One signal for the whole request: the caller hanging up, or MANIFOLD_ORCHESTRATION_TIMEOUT passing.
  // One controller, aborted by either (cheaper than AbortSignal.any on every request); `timedOut` says which.
  const stop = new AbortController();
  let timedOut = false;
  const timer = core.clock.setTimeout(() => {
    timedOut = true;
    stop.abort(new ManifoldError("TIMEOUT", `the request did not finish within ${settings.timeoutMs} ms (MANIFOLD_ORCHESTRATION_TIMEOUT)`));
  }, settings.timeoutMs);
  const hangUp = (): void => stop.abort(run.signal?.reason);
  if (run.signal?.aborted === true) hangUp();
  else run.signal?.addEventListener("abort", hangUp, { once: true });
  const { signal } = stop;
  const naturalRun = createNaturalRun({
    requestId,
    settings,
    synthesise: run.synthesise === true,
    signal,
    record,
    phase: run.resume === undefined ? 1 : phaseOf(run.resume.plan),
    ...(run.onProgress && { progress: run.onProgress }),
  });
  // A resumed run skips planning, where the catalog is read: binding, recovery and the phase loop need it all the same.
  if (run.resume !== undefined) naturalRun.catalog = await core.fullCatalog();
  let regenerations = 0;
  let proposal: PlanProposal | undefined;
  const plan = async (): Promise<Plan | PlanProposal> => {
    if (core.contextSources.length > 0) await gatherInto(core, naturalRun, request);
    const planned = await planner(request, { catalog: () => visibleCatalog(core), signal, ...(record && { record }) });
    if (!("plan" in planned)) return (proposal = planned);
    regenerations = planned.regenerations;
    return planned.plan;
  };
  try {
    // The planner's parts load with the first natural request (a resumed run plans nothing, and needs them too).
    await core.natural.ready();
    const done = await withNaturalRun(naturalRun, () =>
      runPipeline(core, {
        mode: "natural",
        request,
        plan,
        execute: { syntax: "braces" },
        checkReplacement: async (replaced) => checkReplacement(replaced, await core.fullCatalog()),
        ...(record && { record }),
        options: { ...run, signal },
      }),
    );
    // A timeout that stopped the steps without failing anything (no synthesis to ask) is still the timeout.
    if (timedOut && done.paused === undefined) throw signal.reason;
    const { clarification } = done.plan;
    if (clarification !== undefined) core.natural.finish?.(requestId, currentScope()?.originalRequestId, { outcome: "needs_input", http_status: 200 });
    return {
      ...done.result,
      plan: done.plan,
      request_id: requestId,
      // The language model's proposal was revised by natural.plan_check until it checked.
      regenerations: proposal?.revisions ?? regenerations,
      phases: phaseOf(done.plan),
      ...(clarification === undefined ? {} : { clarification }),
      usage_by_phase: Object.fromEntries([...naturalRun.usage].sort(([a], [b]) => (a < b ? -1 : 1))),
      llm_calls: naturalRun.calls,
      ...(done.synthesis === undefined ? {} : { synthesis: done.synthesis }),
      hooks: done.hooks,
      ...(done.paused === undefined ? {} : { paused: done.paused }),
    };
  } catch (error) {
    // The timeout, not the abort it caused, is what the caller is told.
    const told = timedOut ? signal.reason : error;
    // The LLM debug record says how it ended (422 PLAN_INVALID, 502 LLM_ERROR, …): the dashboard's Errors list finds it.
    core.natural.finish?.(requestId, currentScope()?.originalRequestId, failedFinal(told));
    throw told;
  } finally {
    core.clock.clearTimeout(timer);
    run.signal?.removeEventListener("abort", hangUp);
  }
}
