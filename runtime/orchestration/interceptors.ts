/**
 * The one seam for everything that wraps a step or a run (approval, error checkpoints, recovery,
 * micro-resolution, audit): an ordered list of interceptors, each a named object with optional hooks,
 * like a Vite plugin. The executor asks `beforeStep` / `afterStep` (this file); the orchestrator asks
 * `afterPlan` / `afterExecution` (pipeline-interceptors.ts). Neither knows what a feature does with them: a new behaviour is one more
 * interceptor in the list, tested on its own, never a branch in the executor.
 *
 * Order: hooks are asked in list order. In a chain, `continue` / `accept` (or no answer) passes to the
 * next interceptor, `replace` changes what the next ones see and the chain goes on, and the first
 * `pause`, `fail` or `retry` ends the chain with that answer.
 */
import type { ManifoldError } from "../errors/index.js";
import { isThenable } from "../util/index.js";
import type { Plan, PlanMode, PlanStep } from "./plan.js";

export type Awaitable<T> = T | Promise<T>;

/**
 * What the interceptors of a paused run keep for its continuation, by the name of the feature that
 * keeps it (HITL: the steps a human approved, corrected parameters). A resumed run hands it back.
 */
export type InterceptorState = Readonly<Record<string, unknown>>;

/** A step about to be dispatched. */
export interface StepContext {
  readonly plan: Plan;
  readonly step: PlanStep;
  /** The step's index in the plan. */
  readonly index: number;
  /** The front end that made the plan (`custom` for a custom run). */
  readonly mode: PlanMode;
  /** What the step will be called with: resolved, or as an earlier interceptor or a `retry` replaced it. */
  readonly parameters: unknown;
  /** 0 for the step's first pass; one more for each `retry` an `afterStep` answered. */
  readonly round: number;
  /** Aborted when the run stops (a failure, the caller hanging up). */
  readonly signal: AbortSignal;
  readonly state: InterceptorState;
  /**
   * The output of an earlier step of this run (undefined for one not completed): what a template
   * read, for an interceptor that looks at the source data again (micro-resolution, recovery).
   * Not `output`: that name is a finished step's own output in `StepOutcomeContext`.
   */
  readonly outputOf?: (stepId: string) => unknown;
}

/** A step whose attempts have ended: exactly one of `output` and `error` is meaningful. */
export interface StepOutcomeContext extends StepContext {
  readonly output?: unknown;
  /** Set when the step failed (after its own `retry` attempts). */
  readonly error?: ManifoldError;
  /** Calls made in this round. */
  readonly attempts: number;
}

/** The run stops here, waiting for something outside it; it ends `interrupted` with `interrupt` set. */
export interface StepPause {
  readonly action: "pause";
  /** Why, for whoever continues the run (`interrupt.reason`). */
  readonly reason: string;
  /** The reason the steps not run are skipped with. @defaultValue `paused at step <id>` */
  readonly waiting?: string;
  /** Anything the interceptor wants in `interrupt.data` (HITL: the policy entries it matched). */
  readonly data?: unknown;
}

export interface StepFail {
  readonly action: "fail";
  /** The step fails with it, and the step's `on_error` applies. */
  readonly error: ManifoldError;
}

export type BeforeStepDecision = { readonly action: "continue" } | { readonly action: "replace"; readonly parameters: unknown } | StepPause | StepFail;

export type AfterStepDecision =
  | { readonly action: "accept" }
  /** The step runs again (before-step interceptors first) with these parameters; `round` tells how many times so far. */
  | { readonly action: "retry"; readonly parameters: unknown }
  | StepPause
  | StepFail;

/** The executor's hooks. */
export interface StepInterceptor {
  readonly name: string;
  /** Before a step is dispatched, with its resolved parameters. */
  beforeStep?(context: StepContext): Awaitable<BeforeStepDecision | undefined>;
  /**
   * After a step ended (completed or failed), while the run goes on: not asked about a step aborted
   * because the run stopped.
   */
  afterStep?(context: StepOutcomeContext): Awaitable<AfterStepDecision | undefined>;
}

/** Names are unique: a feature's interrupt names its interceptor, and state is found by name. */
export function checkInterceptors(interceptors: readonly StepInterceptor[]): void {
  const seen = new Set<string>();
  for (const { name } of interceptors) {
    if (typeof name !== "string" || name === "") throw new TypeError("an interceptor needs a name");
    if (seen.has(name)) throw new TypeError(`two interceptors are named ${name}`);
    seen.add(name);
  }
}

/** The chain's answer, with the interceptor that gave it (the first that did not pass). */
export interface Answered<D> {
  readonly decision: D;
  readonly by?: string;
}

/**
 * Asks each interceptor in order. `passes` are the answers that go on to the next one; `update`
 * folds a `replace` into the context the next ones see. Synchronous while every hook answers
 * synchronously (the executor's fast path awaits nothing), else a promise.
 */
export function runChain<I extends { readonly name: string }, C, D extends { readonly action: string }>(
  interceptors: readonly I[],
  hook: (interceptor: I, context: C) => Awaitable<D | undefined> | undefined,
  context: C,
  pass: D,
  update: (context: C, decision: D) => C | undefined,
): Awaitable<Answered<D> & { readonly context: C }> {
  let current = context;
  for (let i = 0; i < interceptors.length; i += 1) {
    const interceptor = interceptors[i]!;
    const answer = hook(interceptor, current);
    if (isThenable(answer)) return continueAsync(interceptors, i, answer, hook, current, pass, update);
    const next = fold(answer, interceptor.name, current, pass, update);
    if ("stop" in next) return next.stop;
    current = next.context;
  }
  return { decision: pass, context: current };
}

function fold<C, D extends { readonly action: string }>(
  answer: D | undefined,
  by: string,
  context: C,
  pass: D,
  update: (context: C, decision: D) => C | undefined,
): { readonly context: C } | { readonly stop: Answered<D> & { readonly context: C } } {
  if (answer === undefined || answer.action === pass.action) return { context };
  const updated = update(context, answer);
  if (updated !== undefined) return { context: updated };
  return { stop: { decision: answer, by, context } };
}

async function continueAsync<I extends { readonly name: string }, C, D extends { readonly action: string }>(
  interceptors: readonly I[],
  from: number,
  pending: Promise<D | undefined>,
  hook: (interceptor: I, context: C) => Awaitable<D | undefined> | undefined,
  context: C,
  pass: D,
  update: (context: C, decision: D) => C | undefined,
): Promise<Answered<D> & { readonly context: C }> {
  let current = context;
  let answer: Awaitable<D | undefined> | undefined = pending;
  for (let i = from; i < interceptors.length; i += 1) {
    if (i > from) answer = hook(interceptors[i]!, current);
    const next = fold(await answer, interceptors[i]!.name, current, pass, update);
    if ("stop" in next) return next.stop;
    current = next.context;
  }
  return { decision: pass, context: current };
}

export const CONTINUE = { action: "continue" } as const;
export const ACCEPT = { action: "accept" } as const;

/** The before-step chain: `replace` hands the new parameters to the next interceptor. */
export function beforeStep(interceptors: readonly StepInterceptor[], context: StepContext): Awaitable<Answered<BeforeStepDecision> & { context: StepContext }> {
  return runChain<StepInterceptor, StepContext, BeforeStepDecision>(
    interceptors,
    (interceptor, c) => interceptor.beforeStep?.(c),
    context,
    CONTINUE,
    (c, decision) => (decision.action === "replace" ? { ...c, parameters: decision.parameters } : undefined),
  );
}

/** The after-step chain: nothing is folded; the first answer other than `accept` is the step's fate. */
export function afterStep(interceptors: readonly StepInterceptor[], context: StepOutcomeContext): Awaitable<Answered<AfterStepDecision>> {
  return runChain<StepInterceptor, StepOutcomeContext, AfterStepDecision>(
    interceptors,
    (interceptor, c) => interceptor.afterStep?.(c),
    context,
    ACCEPT,
    () => undefined,
  );
}
