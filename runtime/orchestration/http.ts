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
    // What happened to each step, never what it returned: outputs echo the inputs, and a failure
    // answer must stay small whatever the request carried.
    details: result.steps.map(({ output: _output, ...step }, i) => ({
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
    ...(result.synthesis === undefined ? {} : { response: result.synthesis }),
    steps: result.steps,
    duration_ms: result.duration_ms,
  };
}

/**
 * How much to trust a natural answer, from 0 to 1: the share of planned steps that completed (1 for a
 * plan that needed no step), times 0.9 for each plan the model had to regenerate. Two decimals.
 */
export function naturalConfidence(result: NaturalRunResult): number {
  const planned = result.steps.length;
  const completed = result.steps.filter((s) => s.status === "completed").length;
  const share = planned === 0 ? 1 : completed / planned;
  return Math.round(share * 0.9 ** result.regenerations * 100) / 100;
}

/** `POST /orchestrate/natural` answer; failed steps are in `steps` (and lower `confidence`), not an error. */
export function naturalResponse(result: NaturalRunResult): Record<string, unknown> {
  if (result.status === "interrupted") throw workflowFailed(`plan ${result.plan_id}`, result);
  const toolsUsed = [...new Set(result.steps.filter((s) => s.status === "completed").map((s) => s.component))];
  const { clarification } = result;
  // The model asked the user instead of guessing: the question is the answer; nothing new was dispatched.
  if (clarification !== undefined)
    return {
      success: true,
      request_id: result.request_id,
      status: "needs_input",
      question: clarification.question,
      missing_fields: clarification.missing_fields,
      steps: result.steps,
      plan_id: result.plan_id,
      mode: "natural",
      phases: result.phases,
      duration_ms: result.duration_ms,
      metadata: { usage_by_phase: result.usage_by_phase, llm_calls: result.llm_calls },
    };
  return {
    success: true,
    request_id: result.request_id,
    status: "completed",
    phases: result.phases,
    ...(result.synthesis === undefined ? {} : { response: result.synthesis }),
    tools_used: toolsUsed,
    confidence: naturalConfidence(result),
    plan_id: result.plan_id,
    mode: "natural",
    plan: result.plan,
    steps: result.steps,
    duration_ms: result.duration_ms,
    // What the request cost: tokens by interaction type, and the model calls charged to MANIFOLD_MAX_LLM_CALLS.
    metadata: { usage_by_phase: result.usage_by_phase, llm_calls: result.llm_calls },
  };
}
