/**
 * The agent's side of human approval: the `Approvals` the orchestrator asks (plan approval, the step
 * gate, storing a paused run as a checkpoint) and the resume coordinator (claim once, continue the
 * run as it was, answer as its route would, possibly with a further checkpoint).
 */
import { jsonReply, type JsonReply } from "../component/index.js";
import { currentScope } from "../context/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import type { Approvals, OrchestrationExtension, PausedRun, ResumeRun, StepResult } from "../orchestration/index.js";
import { getTelemetry } from "../telemetry/index.js";
import { createStepGate, type HitlPolicy } from "./policy.js";
import { type Checkpoint, type CheckpointStore, type NewCheckpoint, newCheckpointId } from "./store/index.js";

/** What `original_request` holds: enough to continue the run through the front end that made it. */
export interface StoredRequest {
  readonly mode: PausedRun["mode"];
  readonly workflow?: string;
  readonly request: unknown;
  readonly synthesise: boolean;
}

/** The 202 answer of a paused request, and the `checkpoint` event of a stream. */
export interface Interrupted {
  readonly status: "interrupted";
  readonly checkpoint_id: string;
  readonly checkpoint: Checkpoint;
}

export interface CoordinatorOptions {
  readonly policy: HitlPolicy;
  readonly store: CheckpointStore;
  readonly agentName: string;
  /** Where this agent is reached (for the dashboard's proxy), once it listens. */
  readonly agentUrl: () => string | undefined;
  readonly orchestration: OrchestrationExtension;
  readonly clock?: () => number;
}

export interface Coordinator {
  readonly approvals: Approvals;
  /**
   * Claims an approved checkpoint (once: a second resume is CONFLICT) and continues its run. Resolves
   * to what the run's route answers: the result body, or a `jsonReply(202, Interrupted)` for a further
   * checkpoint; a failed run throws as the route would (WORKFLOW_FAILED).
   */
  resume(checkpointId: string, options: { signal?: AbortSignal; requestMode: "streaming" | "non_streaming" }): Promise<unknown>;
}

function currentTraceparent(): NewCheckpoint["trace"] {
  const ids = getTelemetry().currentIds();
  return ids === undefined ? undefined : { traceparent: `00-${ids.traceId}-${ids.spanId}-01` };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export function createCoordinator({ policy, store, agentName, agentUrl, orchestration, clock = Date.now }: CoordinatorOptions): Coordinator {
  const pause = async (paused: PausedRun): Promise<JsonReply> => {
    const scope = currentScope();
    const now = clock();
    const interrupt = paused.result.interrupt;
    const url = agentUrl();
    const trace = currentTraceparent();
    const { conversation_id = scope?.conversationId, session_id } = paused.context.user_context ?? {};
    const request: StoredRequest = {
      mode: paused.mode,
      ...(paused.workflow === undefined ? {} : { workflow: paused.workflow }),
      request: paused.request,
      synthesise: paused.synthesise,
    };
    const checkpoint: NewCheckpoint = {
      checkpoint_id: newCheckpointId(),
      type: paused.type,
      agent_name: agentName,
      ...(url === undefined ? {} : { agent_url: url }),
      request_mode: paused.context.request_mode,
      plan: paused.plan,
      ...(interrupt === undefined
        ? {}
        : {
            current_step: { step_id: interrupt.step_id, index: interrupt.index },
            resolved_parameters: isRecord(interrupt.parameters) ? interrupt.parameters : { value: interrupt.parameters },
          }),
      decision: { reason: paused.reason, sensitive_matches: paused.sensitive_matches },
      original_request: request,
      user_context: { ...(conversation_id === undefined ? {} : { conversation_id }), ...(session_id === undefined ? {} : { session_id }) },
      original_request_id: scope?.originalRequestId ?? scope?.requestId ?? checkpointIdFallback(),
      ...(trace === undefined ? {} : { trace }),
      completed_steps: paused.result.steps.filter((step) => step.status === "completed") as unknown as Readonly<Record<string, unknown>>[],
      default_action: policy.defaultAction,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + policy.expiryMs).toISOString(),
    };
    const saved = await store.create(checkpoint);
    const body: Interrupted = { status: "interrupted", checkpoint_id: saved.checkpoint_id, checkpoint: saved };
    return jsonReply(202, body);
  };

  const approvals: Approvals = {
    planApproval: () => policy.enabled && policy.planApproval,
    gate: (_mode, approved) => createStepGate(policy, approved),
    // A step whose input the tool refused (400 INVALID_INPUT) is one a human can correct: the run waits
    // for corrected parameters (an approve with `parameters`) or a reject, rather than failing.
    onFailure: () =>
      policy.enabled
        ? (step, _parameters, error) =>
            error.code === "INVALID_INPUT"
              ? {
                  reason: `${step.agent_name}.${step.metadata.capability} refused its input: ${error.expose ? error.message : "invalid input"}`,
                  sensitive_matches: [],
                }
              : undefined
        : undefined,
    pause,
  };

  return {
    approvals,
    async resume(checkpointId, { signal, requestMode }) {
      // Only the agent that paused the run can continue it (its workflows, its plan's tools); checked
      // before the claim, so a resume sent to the wrong agent leaves the checkpoint resumable.
      await requireOwnCheckpoint(store, checkpointId, agentName);
      const claimed = await store.claimResume(checkpointId, clock());
      const stored = claimed.original_request as StoredRequest;
      // Every step the checkpoint's run had let through stays approved; the blocked one now is too.
      const approved = [...claimed.completed_steps.map((s) => String(s["step_id"])), ...(claimed.current_step ? [claimed.current_step.step_id] : [])];
      const corrected = claimed.resolution?.parameters;
      const resume: ResumeRun = {
        plan: claimed.plan,
        completed: claimed.completed_steps as unknown as StepResult[],
        approved,
        planApproved: true,
        ...(corrected === undefined || claimed.current_step === undefined ? {} : { parameters: { [claimed.current_step.step_id]: corrected } }),
      };
      const { conversation_id, session_id } = claimed.user_context;
      const run = (): Promise<unknown> =>
        orchestration.resume(stored, resume, {
          ...(signal === undefined ? {} : { signal }),
          approvalContext: {
            request_mode: requestMode,
            user_context: { ...(conversation_id === undefined ? {} : { conversation_id }), ...(session_id === undefined ? {} : { session_id }) },
          },
        });
      // Part of the resume request's own (new) trace, linked to the one the checkpoint interrupted.
      const telemetry = getTelemetry();
      const span = telemetry.enabled
        ? telemetry.startSpan("hitl.resume", {
            parent: "active",
            attributes: { checkpoint_id: claimed.checkpoint_id, original_request_id: claimed.original_request_id, "link.type": "hitl_resume" },
            ...(claimed.trace === undefined ? {} : { links: [claimed.trace] }),
          })
        : undefined;
      if (span === undefined) return run();
      try {
        const answer = await span.run(run);
        span.end();
        return answer;
      } catch (error) {
        span.end(isManifoldErrorCode(error));
        throw error;
      }
    },
  };
}

const isManifoldErrorCode = (error: unknown): string => (isManifoldError(error) ? error.code : "INTERNAL");

/** A request outside any request scope (a task, a test) still gets an id to group its checkpoints by. */
function checkpointIdFallback(): string {
  return newCheckpointId().replace(/^cp-/, "req-");
}

/** The checkpoint, if this agent made it: another agent's (they share a namespace's store) is CONFLICT. */
export async function requireOwnCheckpoint(store: CheckpointStore, checkpointId: string, agentName: string): Promise<Checkpoint> {
  const checkpoint = await requireCheckpoint(store, checkpointId);
  if (checkpoint.agent_name !== agentName)
    throw new ManifoldError("CONFLICT", `checkpoint ${checkpointId} belongs to ${checkpoint.agent_name}; send it there`, {
      details: [{ pointer: "/checkpoint_id", message: `belongs to ${checkpoint.agent_name}`, agent_name: checkpoint.agent_name }],
    });
  return checkpoint;
}

/** A command's checkpoint, refusing an unknown id with the store's NOT_FOUND. */
export async function requireCheckpoint(store: CheckpointStore, checkpointId: string): Promise<Checkpoint> {
  const checkpoint = await store.get(checkpointId);
  if (checkpoint === undefined) throw new ManifoldError("NOT_FOUND", `no checkpoint ${checkpointId.slice(0, 80)}`);
  return checkpoint;
}
