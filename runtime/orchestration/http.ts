/**
 * The wire shapes of the orchestration answers.
 */
import { ManifoldError } from "../errors/index.js";
import type { ExecutionResult } from "./executor.js";
import type { NaturalRunResult, WorkflowRunResult } from "./orchestrator.js";

/** 502 WORKFLOW_FAILED whose details are the step entries (each with a pointer into `steps`). */
export function workflowFailed(what: string, result: ExecutionResult): ManifoldError {
  const failed = result.steps.find((s) => s.status === "failed");
  const why =
    result.status === "interrupted"
      ? "the run was interrupted"
      : failed === undefined
        ? "a step failed"
        : `step ${failed.step_id} failed (${failed.error?.code ?? "INTERNAL"}: ${failed.error?.message ?? ""})`;
  return new ManifoldError("WORKFLOW_FAILED", `${what} failed: ${why}`, {
    details: result.steps.map((step, i) => ({
      ...step,
      pointer: `/steps/${i}`,
      message:
        step.status === "failed"
          ? `${step.error?.code ?? "INTERNAL"}: ${step.error?.message ?? ""}`
          : step.status === "skipped"
            ? (step.reason ?? "skipped")
            : "completed",
    })),
  });
}

/** `POST /orchestrate/<workflow>` answer. */
export function workflowResponse(result: WorkflowRunResult): Record<string, unknown> {
  if (result.status !== "completed") throw workflowFailed(`workflow ${result.workflow}`, result);
  return {
    success: true,
    plan_id: result.plan_id,
    workflow: result.workflow,
    outputs: result.outputs,
    ...(result.synthesis === undefined ? {} : { synthesis: result.synthesis }),
    steps: result.steps,
    duration_ms: result.duration_ms,
  };
}

/** `POST /orchestrate/natural` answer. */
export function naturalResponse(result: NaturalRunResult): Record<string, unknown> {
  if (result.status !== "completed") throw workflowFailed(`plan ${result.plan_id}`, result);
  return {
    success: true,
    plan_id: result.plan_id,
    mode: "natural",
    plan: result.plan,
    ...(result.synthesis === undefined ? {} : { synthesis: result.synthesis }),
    steps: result.steps,
    duration_ms: result.duration_ms,
  };
}
