/**
 * Making a checkpoint of a paused run: everything a resume needs to continue it later (its plan, the
 * front end's request, the completed steps, where it stopped and with which parameters), stored, and
 * answered as the spec's 202 `{status: "interrupted", checkpoint_id, checkpoint}`.
 */
import { jsonReply, type JsonReply } from "../component/index.js";
import { callerIdentity, currentScope } from "../context/index.js";
import type { PlanContext, RunInterrupt, RunRequest, StepResult } from "../orchestration/served.js";
import { getTelemetry } from "../telemetry/index.js";
import type { IndirectCall } from "./gate.js";
import type { HitlPolicy } from "./policy.js";
import { type Checkpoint, type CheckpointStore, type CheckpointType, type NewCheckpoint, newCheckpointId } from "./store/index.js";

/** What `original_request` holds: enough to continue the run through the front end that made it. */
export type StoredRequest = RunRequest;

/** The 202 answer of a paused request, and the `checkpoint` event of a stream. */
export interface Interrupted {
  readonly status: "interrupted";
  readonly checkpoint_id: string;
  readonly checkpoint: Checkpoint;
}

/** A run that stopped for a human. */
export interface PausedRun {
  /** `plan`: before the first step; `step`: before a sensitive step; `error`: after a step a human can correct failed. */
  readonly type: CheckpointType;
  /** The run: its front end's request, plan and request context. */
  readonly run: PlanContext;
  /** Where it stopped (absent for a plan checkpoint). */
  readonly interrupt?: RunInterrupt;
  /** The run's step results so far (the completed ones are kept). */
  readonly steps: readonly StepResult[];
  readonly reason: string;
  readonly sensitive_matches: readonly string[];
  /** The sensitive call the blocked step's callee wanted to make (gate.ts). */
  readonly indirect?: IndirectCall;
}

export interface CheckpointMakerOptions {
  readonly policy: HitlPolicy;
  readonly store: CheckpointStore;
  readonly agentName: string;
  /** Where this agent is reached (for the dashboard's proxy), once it listens. */
  readonly agentUrl: () => string | undefined;
  readonly clock: () => number;
}

/** Stores a paused run as a checkpoint; resolves to the 202 reply the request answers. */
export type CheckpointMaker = (paused: PausedRun) => Promise<JsonReply>;

export function createCheckpointMaker(options: CheckpointMakerOptions): CheckpointMaker {
  return async (paused) => {
    const saved = await options.store.create(newCheckpoint(options, paused));
    const body: Interrupted = { status: "interrupted", checkpoint_id: saved.checkpoint_id, checkpoint: saved };
    return jsonReply(202, body);
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function currentTraceparent(): NewCheckpoint["trace"] {
  const ids = getTelemetry().currentIds();
  return ids === undefined ? undefined : { traceparent: `00-${ids.traceId}-${ids.spanId}-01` };
}

/** A request outside any request scope (a task, a test) still gets an id to group its checkpoints by. */
function checkpointIdFallback(): string {
  return newCheckpointId().replace(/^cp-/, "req-");
}

export function newCheckpoint({ policy, agentName, agentUrl, clock }: CheckpointMakerOptions, paused: PausedRun): NewCheckpoint {
  const scope = currentScope();
  const now = clock();
  const { run, interrupt } = paused;
  const url = agentUrl();
  const trace = currentTraceparent();
  const { conversation_id = scope?.conversationId, session_id } = run.context.user_context ?? {};
  const request: StoredRequest = {
    mode: run.mode,
    ...(run.workflow === undefined ? {} : { workflow: run.workflow }),
    request: run.request,
    synthesise: run.synthesise,
  };
  return {
    checkpoint_id: newCheckpointId(),
    type: paused.type,
    agent_name: agentName,
    ...(url === undefined ? {} : { agent_url: url }),
    request_mode: run.context.request_mode,
    plan: run.plan,
    ...(interrupt === undefined
      ? {}
      : {
          current_step: { step_id: interrupt.step_id, index: interrupt.index },
          resolved_parameters: isRecord(interrupt.parameters) ? interrupt.parameters : { value: interrupt.parameters },
        }),
    decision: {
      reason: paused.reason,
      sensitive_matches: paused.sensitive_matches,
      ...(paused.indirect === undefined ? {} : { indirect: paused.indirect }),
    },
    original_request: request,
    user_context: { ...(conversation_id === undefined ? {} : { conversation_id }), ...(session_id === undefined ? {} : { session_id }) },
    requested_by: { subject: callerIdentity().subject, kind: callerIdentity().kind },
    original_request_id: scope?.originalRequestId ?? scope?.requestId ?? checkpointIdFallback(),
    ...(trace === undefined ? {} : { trace }),
    completed_steps: paused.steps.filter((step) => step.status === "completed") as unknown as Readonly<Record<string, unknown>>[],
    default_action: policy.defaultAction,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + policy.expiryMs).toISOString(),
  };
}
