/**
 * The agent's side of human approval: HITL's interceptors (interceptors.ts), registered on the
 * orchestrator, and the resume coordinator (claim once, continue the run as it was, answer as its
 * route would, possibly with a further checkpoint).
 */
import { JsonReply } from "../component/index.js";
import { ANONYMOUS, currentScope, sameIdentity, withIdentity, withRequestContext, type Identity } from "../context/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import { type Interceptor, type OrchestrationExtension, type ResumeRun, type StepResult, wasNeverSent } from "../orchestration/served.js";
import { getTelemetry } from "../telemetry/index.js";
import { createCheckpointMaker, type StoredRequest } from "./checkpoint.js";
import { createHitlInterceptors, HITL_STATE, type HitlState } from "./interceptors.js";
import type { HitlPolicy } from "./policy.js";
import { type Checkpoint, type CheckpointStore, DEFAULT_MAX_RESUME_ATTEMPTS } from "./store/index.js";

export type { Interrupted, StoredRequest } from "./checkpoint.js";

export interface CoordinatorOptions {
  readonly policy: HitlPolicy;
  readonly store: CheckpointStore;
  readonly agentName: string;
  /** Where this agent is reached (for the dashboard's proxy), once it listens. */
  readonly agentUrl: () => string | undefined;
  readonly orchestration: OrchestrationExtension;
  readonly clock?: () => number;
  /** Resumes that may fail before the approved step ran; then the checkpoint is `failed`. @defaultValue 5 */
  readonly maxResumeAttempts?: number;
  /** Told when a failed resume could not give its approval back. @defaultValue none */
  readonly log?: (message: string, error: unknown) => void;
}

export interface ResumeOptions {
  readonly signal?: AbortSignal;
  readonly requestMode: "streaming" | "non_streaming";
}

export interface Coordinator {
  /**
   * Claims an approved checkpoint (once: a second resume is CONFLICT) and continues its run. Resolves
   * to what the run's route answers: the result body, or a `jsonReply(202, Interrupted)` for a further
   * checkpoint; a failed run throws as the route would (WORKFLOW_FAILED).
   */
  resume(checkpointId: string, options: ResumeOptions): Promise<unknown>;
}

export function createCoordinator({
  policy,
  store,
  agentName,
  agentUrl,
  orchestration,
  clock = Date.now,
  maxResumeAttempts = DEFAULT_MAX_RESUME_ATTEMPTS,
  log = () => undefined,
}: CoordinatorOptions): Coordinator {
  if (!Number.isSafeInteger(maxResumeAttempts) || maxResumeAttempts < 1) throw new RangeError("maxResumeAttempts must be a positive whole number");
  const checkpoint = createCheckpointMaker({ policy, store, agentName, agentUrl, clock });
  // The probe comes last: when it is asked about a step, every other HITL interceptor let it through.
  // Registered here, with the policy that decides it, because a resume trusts the probe only when it is.
  if (policy.enabled) orchestration.orchestrator.use(...createHitlInterceptors(policy, checkpoint), resumeProbeInterceptor);
  return {
    resume: (checkpointId, options) =>
      resumeCheckpoint(
        { store, agentName, orchestration, clock, maxResumeAttempts, probed: policy.enabled, gated: policy.enabled ? policy.sensitiveCapabilities : [], log },
        checkpointId,
        options,
      ),
  };
}

const RESUME_PROBE = "hitl.resume_probe";

/**
 * What a resumed run did with the steps its approval covers (the blocked step; every step of an
 * approved plan): whether one may have reached its component. A step counts as not run only when it
 * was never dispatched, or its dispatch ended with no call made or with `wasNeverSent` (the target
 * could not be found, every connection was refused); a step dispatched whose outcome is unknown (the
 * run stopped mid-call) counts as run, so an approved action is never run twice.
 */
interface ResumeProbe {
  readonly watched: ReadonlySet<string>;
  readonly dispatched: Set<string>;
  reached: boolean;
}

const probeOf = (state: Readonly<Record<string, unknown>>): ResumeProbe | undefined => state[RESUME_PROBE] as ResumeProbe | undefined;
const mayHaveRun = (probe: ResumeProbe): boolean => probe.reached || probe.dispatched.size > 0;

const resumeProbeInterceptor: Interceptor = {
  name: RESUME_PROBE,
  beforeStep({ state, step }) {
    const probe = probeOf(state);
    if (probe?.watched.has(step.step_id)) probe.dispatched.add(step.step_id);
    return undefined;
  },
  afterStep({ state, step, error, attempts }) {
    const probe = probeOf(state);
    if (probe === undefined || !probe.dispatched.has(step.step_id)) return undefined;
    probe.dispatched.delete(step.step_id);
    if (error === undefined || !(attempts === 0 || wasNeverSent(error))) probe.reached = true;
    return undefined;
  },
};

function createProbe(claimed: Checkpoint): ResumeProbe {
  const watched = claimed.current_step === undefined ? claimed.plan.steps.map((s) => s.step_id) : [claimed.current_step.step_id];
  return { watched: new Set(watched), dispatched: new Set(), reached: false };
}

/** The run a claimed checkpoint continues: its plan, its completed steps, and HITL's state (what a human approved or corrected). */
export function resumeOf(claimed: Checkpoint): ResumeRun {
  // Every step the checkpoint's run had let through stays approved; the blocked one now is too.
  const approved = [...claimed.completed_steps.map((s) => String(s["step_id"])), ...(claimed.current_step ? [claimed.current_step.step_id] : [])];
  // A step checkpoint shows the parameters a human approves (an automatic recovery's correction
  // included): the resumed step sends exactly those, unless the human gave others.
  const shown = claimed.type === "step" && claimed.current_step !== undefined ? claimed.resolved_parameters : undefined;
  const given = claimed.resolution?.parameters;
  const corrected = given ?? shown;
  // The indirect call the checkpoint named: the resumed step's callee may make exactly it, once (gate.ts).
  const indirect = claimed.decision?.indirect;
  const state: HitlState = {
    approved,
    ...(indirect === undefined || claimed.current_step === undefined ? {} : { indirect: { [claimed.current_step.step_id]: indirect } }),
    ...(corrected === undefined || claimed.current_step === undefined ? {} : { parameters: { [claimed.current_step.step_id]: corrected } }),
  };
  const decision = given !== undefined ? "corrected" : claimed.resolution?.action === "expire" ? "expired_approved" : "approved";
  return {
    plan: claimed.plan,
    completed: claimed.completed_steps as unknown as StepResult[],
    state: { [HITL_STATE]: state },
    checkpoint: { checkpoint_id: claimed.checkpoint_id, decision },
  };
}

interface ResumeDeps {
  readonly store: CheckpointStore;
  readonly agentName: string;
  readonly orchestration: OrchestrationExtension;
  readonly clock: () => number;
  readonly maxResumeAttempts: number;
  /** Whether the probe is registered (HITL on): without it nothing says the step did not run, so the claim is never released. */
  readonly probed: boolean;
  /** What every request of the agent may not call unapproved (the component's `gated`): a resumed run is gated the same way. */
  readonly gated: readonly string[];
  readonly log: (message: string, error: unknown) => void;
}

/**
 * Runs `run` as the checkpoint's requester, whoever resumes it (the requester, an approver, the
 * expiry processor): a further checkpoint is theirs too, with the original request id and
 * conversation. Its request is gated like a route's (issue 32, H2): the approved step is granted by
 * the step gate, the rest of the run is not, so a later step whose callee reaches a sensitive
 * capability pauses again.
 */
function asRequester<T>(claimed: Checkpoint, gated: readonly string[], run: () => Promise<T>): Promise<T> {
  const requester = claimed.requested_by ?? ANONYMOUS;
  const identity: Identity = { subject: requester.subject, kind: requester.kind, via: sameIdentity(ANONYMOUS, requester) ? "anonymous" : "token" };
  const { conversation_id } = claimed.user_context;
  return withIdentity(identity, () =>
    withRequestContext(
      { originalRequestId: claimed.original_request_id, ...(conversation_id === undefined ? {} : { conversationId: conversation_id }) },
      () => {
        currentScope()?.approval?.restrict(gated);
        return run();
      },
    ),
  );
}

/**
 * Runs a claimed checkpoint's continuation. When it ends (an answer or a failure, not a further
 * checkpoint) without the approved step having run, the claim is released: the checkpoint is
 * resumable again with its attempt counted (M2 of issue 32: a resume that failed while the tools
 * were down must not use up the approval).
 */
async function runClaimed(deps: ResumeDeps, claimed: Checkpoint, run: (resume: ResumeRun) => Promise<unknown>): Promise<unknown> {
  const probe = createProbe(claimed);
  const base = resumeOf(claimed);
  const release = async (): Promise<void> => {
    if (!deps.probed || mayHaveRun(probe)) return;
    await deps.store
      .releaseResume(claimed.checkpoint_id, { attempts: claimed.attempts ?? 0, now: deps.clock(), maxAttempts: deps.maxResumeAttempts })
      .catch((error: unknown) =>
        deps.log(`checkpoint ${claimed.checkpoint_id}: a resume failed before its approved step ran, and could not be released`, error),
      );
  };
  let answer: unknown;
  try {
    answer = await run({ ...base, state: { ...base.state, [RESUME_PROBE]: probe } });
  } catch (error) {
    await release();
    throw error;
  }
  if (!(answer instanceof JsonReply && answer.status === 202)) await release();
  return answer;
}

async function resumeCheckpoint(deps: ResumeDeps, checkpointId: string, { signal, requestMode }: ResumeOptions): Promise<unknown> {
  const { store, agentName, orchestration, clock } = deps;
  // Only the agent that paused the run can continue it (its workflows, its plan's tools); checked
  // before the claim, so a resume sent to the wrong agent leaves the checkpoint resumable.
  await requireOwnCheckpoint(store, checkpointId, agentName);
  const claimed = await store.claimResume(checkpointId, clock());
  const stored = claimed.original_request as StoredRequest;
  const { conversation_id, session_id } = claimed.user_context;
  const run = (): Promise<unknown> =>
    asRequester(claimed, deps.gated, () =>
      runClaimed(deps, claimed, (resume) =>
        orchestration.resume(stored, resume, {
          ...(signal === undefined ? {} : { signal }),
          // Whoever resumes it (the requester, an approver, the expiry processor), its answer is the requester's.
          ...(claimed.requested_by === undefined ? {} : { requestedBy: claimed.requested_by }),
          requestContext: {
            request_mode: requestMode,
            user_context: { ...(conversation_id === undefined ? {} : { conversation_id }), ...(session_id === undefined ? {} : { session_id }) },
          },
        }),
      ),
    );
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
}

const isManifoldErrorCode = (error: unknown): string => (isManifoldError(error) ? error.code : "INTERNAL");

/** The checkpoint, if this agent made it: another agent's (they share a namespace's store) is CONFLICT. */
export async function requireOwnCheckpoint(store: CheckpointStore, checkpointId: string, agentName: string): Promise<Checkpoint> {
  return checkOwn(await requireCheckpoint(store, checkpointId), agentName);
}

/** `checkpoint`, when `agentName` paused it; another agent's is CONFLICT, naming the agent to send it to. */
export function checkOwn(checkpoint: Checkpoint, agentName: string): Checkpoint {
  if (checkpoint.agent_name !== agentName)
    throw new ManifoldError("CONFLICT", `checkpoint ${checkpoint.checkpoint_id} belongs to ${checkpoint.agent_name}; send it there`, {
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
