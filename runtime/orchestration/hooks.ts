/**
 * Pipeline hooks: code the agent runs around every orchestration request, whatever its front end.
 * A hook is optional (`fail_open`: its failure is logged and the request goes on) or required
 * (`fail_closed`: its failure stops the request with HOOK_FAILED). A hook that throws anything other
 * than a ManifoldError has a bug, not an opinion, and stops the request whatever its mode.
 */
import { ManifoldError, isManifoldError } from "../errors/index.js";
import type { Logger } from "../telemetry/index.js";
import { hookSpanName } from "../telemetry/index.js";
import { getTelemetry } from "../telemetry/index.js";
import type { ExecutionResult } from "./executor.js";
import { checkPlan, type Plan, type PlanMode } from "./plan.js";

export type HookPhase = "before_planning" | "after_planning" | "after_execution" | "after_synthesis";
export type HookMode = "fail_open" | "fail_closed";

export const HOOK_PHASES: readonly HookPhase[] = ["before_planning", "after_planning", "after_execution", "after_synthesis"];

/** What a hook sees. Later phases see more: the plan from after_planning on, the result from after_execution on. */
export interface HookContext {
  readonly phase: HookPhase;
  readonly mode: PlanMode;
  /** The workflow's name (workflow and yaml modes). */
  readonly workflow?: string;
  /** The request as received: the inputs, the custom body, or the natural-language text. */
  readonly request: unknown;
  readonly plan?: Plan;
  readonly result?: ExecutionResult;
  /** A workflow's resolved outputs, from after_execution on. */
  readonly outputs?: Readonly<Record<string, unknown>>;
  readonly synthesis?: unknown;
  readonly signal?: AbortSignal;
}

export interface PipelineHook {
  /** Used in the span name `pipeline.hook.<phase>.<name>` and in execution records: a short identifier. */
  readonly name: string;
  readonly phase: HookPhase;
  /** @defaultValue "fail_open" */
  readonly mode?: HookMode;
  /** An after_planning hook may return a replacement plan; other return values are ignored. */
  // biome-ignore lint/suspicious/noConfusingVoidType: most hooks return nothing, and `void` lets a hook declared `(): void` be passed.
  run(context: HookContext): void | Plan | undefined | Promise<void | Plan | undefined>;
}

/** What a hook decided: its failure policy, what the request did next, and why (an error code) when it did not simply go on. */
export interface HookDecision {
  readonly policy: HookMode;
  readonly action: "continue" | "replace_plan" | "stop";
  readonly reason?: string;
}

export interface HookOutcome {
  readonly name: string;
  readonly phase: HookPhase;
  /** The hook's status. */
  readonly outcome: "ok" | "failed_open" | "failed_closed";
  readonly error?: { readonly code: string; readonly message: string };
  /** 1-based position among the request's hook outcomes. */
  readonly order?: number;
  readonly duration_ms?: number;
  readonly decision?: HookDecision;
}

const HOOK_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Checked once, when the hooks are configured: a typo in a phase must not silently disable a hook. */
export function checkHooks(hooks: readonly PipelineHook[]): readonly PipelineHook[] {
  const seen = new Set<string>();
  for (const hook of hooks) {
    if (typeof hook !== "object" || hook === null || !HOOK_NAME.test(String(hook.name)))
      throw new TypeError("every hook needs a name of 1-64 letters, digits, '_', '.' or '-'");
    if (!HOOK_PHASES.includes(hook.phase)) throw new TypeError(`hook ${hook.name}: phase must be one of ${HOOK_PHASES.join(", ")}`);
    if (hook.mode !== undefined && hook.mode !== "fail_open" && hook.mode !== "fail_closed")
      throw new TypeError(`hook ${hook.name}: mode must be fail_open or fail_closed`);
    if (typeof hook.run !== "function") throw new TypeError(`hook ${hook.name}: run must be a function`);
    const key = `${hook.phase}\u0000${hook.name}`;
    if (seen.has(key)) throw new TypeError(`two ${hook.phase} hooks are named ${hook.name}`);
    seen.add(key);
  }
  return hooks;
}

/**
 * Runs the hooks of one phase in order, appending their outcomes. Returns the plan to use (a
 * replacement from an after_planning hook, checked, else the one given). Throws HOOK_FAILED when a
 * required hook fails or any hook throws unexpectedly; `outcomes` holds the failing one by then.
 */
export async function runHooks(hooks: readonly PipelineHook[], context: HookContext, outcomes: HookOutcome[], log: Logger): Promise<Plan | undefined> {
  let plan = context.plan;
  for (const hook of hooks) {
    if (hook.phase !== context.phase) continue;
    const mode = hook.mode ?? "fail_open";
    const telemetry = getTelemetry();
    const span = telemetry.enabled
      ? telemetry.startSpan(hookSpanName(hook.phase, hook.name), { parent: "active", attributes: { "pipeline.hook.failure_policy": mode } })
      : undefined;
    const started = performance.now();
    const ended = (decision: HookDecision): Pick<HookOutcome, "order" | "duration_ms" | "decision"> => ({
      order: outcomes.length + 1,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      decision,
    });
    try {
      const current: HookContext = plan === undefined || plan === context.plan ? context : { ...context, plan };
      const returned = await (span === undefined ? hook.run(current) : span.run(() => hook.run(current)));
      if (context.phase === "after_planning" && returned !== undefined) plan = checkPlan(returned, `the plan returned by hook ${hook.name}`);
      const action = context.phase === "after_planning" && returned !== undefined ? "replace_plan" : "continue";
      span?.setAttributes({ "pipeline.hook.action": action });
      span?.end();
      outcomes.push({ name: hook.name, phase: hook.phase, outcome: "ok", ...ended({ policy: mode, action }) });
    } catch (thrown) {
      const expected = isManifoldError(thrown);
      // An unexpected throw is a bug: its message may hold anything, so only the log sees it.
      const error = expected
        ? { code: thrown.code, message: thrown.expose ? thrown.message : "internal error" }
        : { code: "INTERNAL", message: "the hook threw unexpectedly" };
      // The reason is the error's code: a bounded value, and never the text of an unexpected throw.
      span?.setAttributes({ "pipeline.hook.action": expected && mode === "fail_open" ? "continue" : "stop", "pipeline.hook.reason": error.code });
      span?.end(error.code);
      if (expected && mode === "fail_open") {
        outcomes.push({
          name: hook.name,
          phase: hook.phase,
          outcome: "failed_open",
          error,
          ...ended({ policy: mode, action: "continue", reason: error.code }),
        });
        log.warn(`hook ${hook.name} (${hook.phase}) failed; continuing (fail_open): ${error.message}`, {
          hook: hook.name,
          phase: hook.phase,
          code: error.code,
        });
        continue;
      }
      outcomes.push({ name: hook.name, phase: hook.phase, outcome: "failed_closed", error, ...ended({ policy: mode, action: "stop", reason: error.code }) });
      if (expected)
        log.warn(`hook ${hook.name} (${hook.phase}) failed; request stopped (fail_closed): ${error.message}`, {
          hook: hook.name,
          phase: hook.phase,
          code: error.code,
        });
      else log.error(`hook ${hook.name} (${hook.phase}) threw unexpectedly; request stopped`, { hook: hook.name, phase: hook.phase, error: thrown });
      const why = expected ? `a required hook failed: ${error.message}` : "it threw unexpectedly";
      throw new ManifoldError("HOOK_FAILED", `hook ${hook.name} (${hook.phase}) stopped the request: ${why}`, {
        details: [{ pointer: "", message: error.message, hook: hook.name, phase: hook.phase, code: error.code }],
        cause: thrown,
      });
    }
  }
  return plan;
}
