/**
 * The checkpoint store port (DESIGN §5, issue 16): one record per human approval checkpoint, a
 * pending-by-expiry index for the expiry processor and a newest-first index for the dashboard. The
 * `memory` and `redis` adapters implement it; one contract suite (test/contract/checkpoints.cases.ts)
 * runs against memory, Redis and Redis Cluster. Every status change is one atomic compare-and-set
 * against CHECKPOINT_TRANSITIONS: a checkpoint is never approved twice, approve and reject racing
 * have one winner, a resume is claimed once.
 */
import type { Plan } from "../../orchestration/served.js";

export type CheckpointType = "plan" | "step" | "error";
export type CheckpointStatus = "pending" | "approved" | "rejected" | "expired_approved" | "expired" | "resumed" | "failed";
/** What the checkpoint does when nobody decides before `expires_at`. */
export type DefaultAction = "approve" | "reject";
/** A human's command (`POST /hitl/command`). */
export type CheckpointAction = "approve" | "reject";
export type RequestMode = "streaming" | "non_streaming";

/**
 * What moves a checkpoint: a human's approve or reject, the expiry processor applying the default
 * action (`expire_approve` / `expire_reject`, by `default_action`), the resume claim, and its
 * release when the resumed run never reached the approved step (`release`, or `fail` once the
 * attempts are spent).
 */
export type CheckpointEvent = "approve" | "reject" | "expire_approve" | "expire_reject" | "resume" | "release" | "fail";

/**
 * The legal status changes, as data: `CHECKPOINT_TRANSITIONS[from][event]` is the status `event`
 * moves a checkpoint in `from` to; an event a status does not list is refused (409 CONFLICT) and
 * changes nothing. Both adapters decide from this table (the Redis scripts are given its rows).
 * `release` is the one row whose target is not fixed: it returns a claim to the status it was
 * claimed from (`approved` or `expired_approved`, kept on the record), which the row names as
 * `approved`; `releaseResume` applies it.
 */
export const CHECKPOINT_TRANSITIONS = {
  pending: { approve: "approved", reject: "rejected", expire_approve: "expired_approved", expire_reject: "expired" },
  approved: { resume: "resumed" },
  expired_approved: { resume: "resumed" },
  rejected: {},
  expired: {},
  resumed: { release: "approved", fail: "failed" },
  failed: {},
} as const satisfies Readonly<Record<CheckpointStatus, Readonly<Partial<Record<CheckpointEvent, CheckpointStatus>>>>>;

export const CHECKPOINT_STATUSES = Object.keys(CHECKPOINT_TRANSITIONS) as readonly CheckpointStatus[];

/** The status `event` moves `from` to, or undefined when the table refuses it. */
export function transitionOf(from: CheckpointStatus, event: CheckpointEvent): CheckpointStatus | undefined {
  const row: Readonly<Partial<Record<CheckpointEvent, CheckpointStatus>>> = CHECKPOINT_TRANSITIONS[from];
  return row[event];
}

/** The statuses `event` may start from, and where each goes. */
export function legalFor(event: CheckpointEvent): readonly { readonly from: CheckpointStatus; readonly to: CheckpointStatus }[] {
  return CHECKPOINT_STATUSES.flatMap((from) => {
    const to = transitionOf(from, event);
    return to === undefined ? [] : [{ from, to }];
  });
}

/**
 * A status with no way out: its record is kept for the retention period, then dropped. `resumed`
 * counts as terminal for eviction and retention: only the claim's own caller releases it, at once.
 */
export function isTerminal(status: CheckpointStatus): boolean {
  return status === "resumed" || Object.keys(CHECKPOINT_TRANSITIONS[status]).length === 0;
}

export interface CheckpointResolution {
  readonly action: "approve" | "reject" | "expire";
  readonly reason?: string;
  /** With an approve: the blocked step's parameters as the human corrected them (an `error` checkpoint). */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /** ISO 8601: the caller's `now` when it applied. */
  readonly at: string;
}

/** A stored checkpoint: the wire shape (snake_case, JSON), what `POST /hitl/command` and the dashboard answer. */
/** A sensitive call a step's callee wanted to make (hitl/gate.ts): approving the step approves exactly this call, once. */
export interface IndirectCall {
  readonly component: string;
  readonly capability: string;
  /** Absent when too large to show; the hash still binds the approval. */
  readonly parameters?: unknown;
  readonly parameters_hash: string;
}

export interface Checkpoint {
  /** `cp-` and 32 hex digits (`newCheckpointId`). */
  readonly checkpoint_id: string;
  readonly type: CheckpointType;
  readonly status: CheckpointStatus;
  readonly agent_name: string;
  /** Where the agent is reached for a resume on another replica. */
  readonly agent_url?: string;
  readonly request_mode: RequestMode;
  readonly plan: Plan;
  /** The blocked step; absent for a plan checkpoint. */
  readonly current_step?: { readonly step_id: string; readonly index: number };
  /** The blocked step's parameters with their expressions resolved. */
  readonly resolved_parameters?: Readonly<Record<string, unknown>>;
  /**
   * Why the run was interrupted, and which sensitive capabilities matched; `indirect` when the blocked
   * step reached a sensitive capability through another component's handler (the call it wanted to make).
   */
  readonly decision: { readonly reason: string; readonly sensitive_matches: readonly string[]; readonly indirect?: IndirectCall };
  /** The request body (or text) as received. */
  readonly original_request: unknown;
  readonly user_context: { readonly conversation_id?: string; readonly session_id?: string };
  /** Who made the request that paused (context/identity.ts): with `MANIFOLD_HITL_APPROVERS`, who may see and decide it. */
  readonly requested_by?: { readonly subject: string; readonly kind: "user" | "agent" };
  readonly original_request_id: string;
  /** W3C trace context of the interrupted request, so the resumed run's trace links to it. */
  readonly trace?: { readonly traceparent: string; readonly tracestate?: string };
  /** Results of the steps that completed before the interrupt: a resume never runs them again. */
  readonly completed_steps: readonly Readonly<Record<string, unknown>>[];
  readonly default_action: DefaultAction;
  /** ISO 8601. */
  readonly created_at: string;
  /** ISO 8601: from this instant the checkpoint belongs to its default action. */
  readonly expires_at: string;
  /** The decision that moved it out of `pending`. */
  readonly resolution?: CheckpointResolution;
  /** ISO 8601 of the resume claim. */
  readonly resumed_at?: string;
  /**
   * Resumes that failed before the approved step ran (each returned the checkpoint to `approved` or
   * `expired_approved`); absent until the first. At `maxAttempts` the checkpoint is `failed`.
   */
  readonly attempts?: number;
}

/** What `create` takes: a checkpoint is always created `pending`, undecided. */
export type NewCheckpoint = Omit<Checkpoint, "status" | "resolution" | "resumed_at" | "attempts">;

export interface ReleaseOptions {
  /** The claimed record's `attempts` (0 when absent): the compare-and-set's token, so a claim is released once. */
  readonly attempts: number;
  /** The caller's clock, ms since the epoch. */
  readonly now: number;
  /** At this many failed resumes the checkpoint is `failed` instead of resumable again. */
  readonly maxAttempts: number;
}

export interface CommandOptions {
  /** The human's reason, kept in `resolution.reason`; at most MAX_REASON characters. */
  readonly reason?: string;
  /** The caller's clock, ms since the epoch: the expiry check and `resolution.at`. */
  readonly now: number;
  /** With approve: the blocked step's corrected parameters, used when the run resumes. */
  readonly parameters?: Readonly<Record<string, unknown>>;
}

export interface CheckpointListOptions {
  readonly status?: CheckpointStatus;
  readonly type?: CheckpointType;
  readonly agent_name?: string;
  /** @defaultValue 50; 1–100 */
  readonly limit?: number;
  /** A page's `next_cursor`: the page after it. */
  readonly cursor?: string;
}

export interface CheckpointPage {
  /** Newest first (by `created_at`, ties by id). */
  readonly checkpoints: readonly Checkpoint[];
  /** Present when more may follow: pass it as `cursor`. */
  readonly next_cursor?: string;
}

export interface CheckpointStore {
  readonly kind: "memory" | "redis";
  /**
   * Stores a new `pending` checkpoint and indexes it by expiry. CONFLICT when the id exists;
   * PAYLOAD_TOO_LARGE past the record size limit; UNAVAILABLE when the embedded store is full.
   */
  create(checkpoint: NewCheckpoint): Promise<Checkpoint>;
  /** Undefined when unknown, past its retention, or not a checkpoint id at all. */
  get(checkpointId: string): Promise<Checkpoint | undefined>;
  /**
   * A human's decision, one compare-and-set: `pending` → `approved` | `rejected`, only while `now` is
   * before `expires_at` (past it the default action owns the checkpoint, whether or not the expiry
   * processor ran). Returns the updated checkpoint. NOT_FOUND for an unknown id; CONFLICT (details:
   * the current status) for anything the table refuses or a late command.
   */
  command(checkpointId: string, action: CheckpointAction, options: CommandOptions): Promise<Checkpoint>;
  /** `approved` | `expired_approved` → `resumed`, once: of two concurrent claims one wins, the other gets CONFLICT. */
  claimResume(checkpointId: string, now: number): Promise<Checkpoint>;
  /**
   * A claimed resume whose run never reached the approved step: `resumed` → the status it was claimed
   * from, `attempts` one more, or `failed` when that reaches `maxAttempts`. One compare-and-set on
   * status `resumed` and `attempts`: a claim is released once. CONFLICT otherwise; NOT_FOUND unknown.
   */
  releaseResume(checkpointId: string, options: ReleaseOptions): Promise<Checkpoint>;
  /**
   * Moves up to `limit` pending checkpoints whose `expires_at` is at or before `now` to
   * `expired_approved` or `expired` by their `default_action`, and returns them as moved. Each due
   * checkpoint is moved by exactly one caller however many run at once. A pass also drops the index
   * entries of records whose retention ended.
   */
  expireDue(now: number, limit: number): Promise<Checkpoint[]>;
  /** The earliest `expires_at` (ms) of a pending checkpoint, for the expiry processor's wake-up. */
  nextExpiry(): Promise<number | undefined>;
  list(options?: CheckpointListOptions): Promise<CheckpointPage>;
  close(): Promise<void>;
}

/** How long a decided checkpoint is kept (terminal, or approved and awaiting its resume). */
export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Resumes that may fail before the approved step ran; the next failure makes the checkpoint `failed`. */
export const DEFAULT_MAX_RESUME_ATTEMPTS = 5;
/** Largest record, as UTF-8 JSON. */
export const DEFAULT_MAX_RECORD_BYTES = 256 * 1024;
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 100;
export const MAX_EXPIRE_LIMIT = 1_000;
export const MAX_REASON = 2_000;
/** Index entries one `list` call reads at most while filtering by type or agent; a page may then end short with a cursor. */
export const MAX_LIST_SCAN = 2_000;
