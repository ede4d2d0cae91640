import type { StepResult } from "../executor.js";
import type { HookOutcome } from "../hooks.js";
import type { Plan, PlanMode } from "../plan.js";
import { checkInteger } from "../../util/index.js";

export type ExecutionStatus = "success" | "failed" | "interrupted";

/** What one orchestration request did, kept for debugging (never on the request path's critical part). */
export interface ExecutionRecord {
  readonly plan_id: string;
  readonly mode: PlanMode;
  /** The workflow's name, for workflow and yaml runs. */
  readonly workflow?: string;
  /** The request's conversation (a chat session, or `X-Conversation-ID`), when it had one: the dashboard groups runs by it. */
  readonly conversation_id?: string;
  readonly status: ExecutionStatus;
  /** The plan that ran (after any after_planning replacement); absent when the request stopped before planning finished. */
  readonly plan?: Plan;
  /** Per-step results in plan order; empty when nothing was dispatched. */
  readonly steps: readonly StepResult[];
  /** Every hook that ran, in order, with its outcome. */
  readonly hooks: readonly HookOutcome[];
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
  /** Writes (or replaces) the record of its plan id and restarts its TTL. */
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
