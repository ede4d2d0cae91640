import type { StepResult, StepRound } from "../executor.js";
import type { HookOutcome } from "../hooks.js";
import type { Plan, PlanMode, PlanPhase } from "../plan.js";
import { checkInteger } from "../../util/index.js";

export type ExecutionStatus = "success" | "failed" | "interrupted";

/** One round of a recorded step: what was sent and how it ended (execution records only). */
export type RecordedRound = Omit<StepRound, "step_id">;

/** A step's result with what it was called with: the last round's parameters, and every round when it went round more than once. */
export interface RecordedStep extends StepResult {
  /** The parameters of the step's last round (cut when large: `{truncated: true, bytes}`). */
  readonly parameters?: unknown;
  /** Every round, oldest first, when an after-step `retry` (a semantic retry) sent the step round again. */
  readonly rounds?: readonly RecordedRound[];
}

/** A pipeline interceptor's answer other than going on (the spec's `pipeline.short_circuit.decision`), and an extend of the phase loop. */
export interface InterceptorDecision {
  readonly interceptor: string;
  readonly stage: "after_plan" | "after_execution";
  readonly action: string;
  readonly reason?: string;
}

/** The request's human-in-the-loop state: the checkpoint it paused at, or the one whose approval resumed it. */
export interface HitlRecordState {
  readonly checkpoint_id: string;
  readonly state: "waiting" | "resumed";
  /** The human's decision that resumed the run (`approved`, `corrected`). */
  readonly decision?: string;
}

export type LifecycleEvent = "started" | "paused" | "resumed" | "completed" | "failed" | "interrupted";

/** What one orchestration request did, kept for debugging (never on the request path's critical part). */
export interface ExecutionRecord {
  readonly plan_id: string;
  /** The request's id (`X-Manifold-Request-ID`), when it ran in a request. */
  readonly request_id?: string;
  /** The request it continues (a resumed run's first request); = request_id otherwise. */
  readonly original_request_id?: string;
  readonly mode: PlanMode;
  /** The workflow's name, for workflow and yaml runs. */
  readonly workflow?: string;
  /** The request's conversation (a chat session, or `X-Conversation-ID`), when it had one: the dashboard groups runs by it. */
  readonly conversation_id?: string;
  readonly status: ExecutionStatus;
  /** The plan that ran (after any after_planning replacement); absent when the request stopped before planning finished. */
  readonly plan?: Plan;
  /** Per-step results in plan order (earlier phases' failed or skipped steps included), with what was sent; empty when nothing was dispatched. */
  readonly steps: readonly RecordedStep[];
  /** Natural mode's phase history (what each phase planned and why), oldest first. */
  readonly phases?: readonly PlanPhase[];
  /** Every hook that ran, in order, with its outcome (a resumed run's after the first run's). */
  readonly hooks: readonly HookOutcome[];
  /** Pipeline interceptors that did not simply go on: paused, failed, replaced a plan, extended the phase loop. */
  readonly decisions?: readonly InterceptorDecision[];
  readonly hitl?: HitlRecordState;
  /** The synthesised answer, when there was one (cut when large). */
  readonly synthesis?: unknown;
  /**
   * What each planning-context source contributed, by source name (natural mode): `skills` lists the
   * skills and versions that shaped the run, memory sources what they recalled (counts, never facts).
   */
  readonly context?: Readonly<Record<string, unknown>>;
  /** What happened when, oldest first (a resumed run adds to its first run's). */
  readonly lifecycle?: readonly { readonly event: LifecycleEvent; readonly at: string }[];
  /**
   * 1 for the first save of a plan id, one more for each later save (a resumed run saves its record
   * again): set by the store, whatever the record given says.
   */
  readonly revision?: number;
  /** Why the request failed as a whole (a hook, an invalid plan), when it did. */
  readonly error?: { readonly code: string; readonly message: string };
  /** ISO 8601. */
  readonly started_at: string;
  readonly finished_at: string;
}

export interface ListOptions {
  /** @defaultValue 20; at most 1000 */
  readonly limit?: number;
}

/**
 * The execution store port; `memory` and `redis` adapters implement it and one contract suite
 * (test/contract/execution-store.cases.ts) runs against both. Records expire after the store's TTL.
 */
export interface ExecutionStore {
  readonly kind: "memory" | "redis";
  /** Writes (or replaces) the record of its plan id, one revision past the one it replaces, and restarts its TTL. */
  save(record: ExecutionRecord): Promise<void>;
  get(planId: string): Promise<ExecutionRecord | undefined>;
  /** Newest first (by `started_at`); records started in the same millisecond come in no set order. */
  list(options?: ListOptions): Promise<ExecutionRecord[]>;
  close(): Promise<void>;
}

export const DEFAULT_EXECUTION_TTL_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_MAX_RECORDS = 1000;
export const MAX_LIST_LIMIT = 1000;

export function checkListLimit(limit: number | undefined): number {
  return checkInteger("limit", limit ?? 20, { min: 1, max: MAX_LIST_LIMIT });
}

/** Milliseconds since the epoch of a record's start, for ordering. */
export function startedMs(record: ExecutionRecord): number {
  const ms = Date.parse(record.started_at);
  if (Number.isNaN(ms)) throw new RangeError("started_at must be an ISO 8601 timestamp");
  return ms;
}
