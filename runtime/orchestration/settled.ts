/**
 * Telling the settled listeners (`orchestrator.onSettled`) that a run ended: episodic memory records
 * it, for instance. Listeners run after the answer is on its way, outside the request's budget; one
 * that throws or rejects is logged and the others are still told.
 */
import { ANONYMOUS, currentScope } from "../context/index.js";
import type { ExecutionResult } from "./executor.js";
import type { Logger } from "../telemetry/index.js";
import type { Plan, PlanMode } from "./plan.js";
import type { RunSettled, SettledListener } from "./context.js";

export interface SettledInput {
  readonly requestId: string | undefined;
  readonly mode: PlanMode;
  readonly workflow: string | undefined;
  readonly request: unknown;
  readonly plan: Plan;
  readonly result: Pick<ExecutionResult, "status" | "steps">;
  readonly synthesis: unknown;
  readonly context: Readonly<Record<string, unknown>> | undefined;
}

export function announceSettled(core: { readonly settled: readonly SettledListener[]; readonly log: Logger }, input: SettledInput): void {
  if (core.settled.length === 0) return;
  const scope = currentScope();
  const settled: RunSettled = {
    requestId: input.requestId,
    mode: input.mode,
    ...(input.workflow === undefined ? {} : { workflow: input.workflow }),
    request: input.request,
    plan: input.plan,
    status: input.result.status,
    steps: input.result.steps.map((s) => ({
      step_id: s.step_id,
      component: s.component,
      capability: s.capability,
      status: s.status,
      ...(s.output === undefined ? {} : { output: s.output }),
    })),
    ...(input.synthesis === undefined ? {} : { synthesis: input.synthesis }),
    identity: scope?.identity ?? ANONYMOUS,
    conversationId: scope?.conversationId,
    context: input.context ?? {},
  };
  for (const listener of core.settled) {
    // A microtask later: the request's answer is not held up by what a listener does synchronously.
    queueMicrotask(() => {
      try {
        Promise.resolve(listener(settled)).catch((error: unknown) => core.log.warn("a settled listener failed", { error }));
      } catch (error) {
        core.log.warn("a settled listener failed", { error });
      }
    });
  }
}
