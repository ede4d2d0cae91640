/**
 * An execution record built from what the pipeline saw of a request: its steps with what each round
 * sent, its phases, hooks, interceptor decisions, HITL state, synthesis and lifecycle. A resumed run
 * saves the record of its plan id again: it keeps the first run's start, hooks, decisions, lifecycle
 * and the rounds of the steps it does not run again. Everything a record holds is bounded: a client
 * can make parameters and answers large, the store's budget must not be spent on one record.
 */
import type { StepResult, StepRound } from "../executor.js";
import type { HookOutcome } from "../hooks.js";
import type { Plan, PlanMode } from "../plan.js";
import type { ExecutionRecord, ExecutionStatus, HitlRecordState, InterceptorDecision, LifecycleEvent, RecordedRound, RecordedStep } from "./types.js";

/** A round's parameters beyond this (as JSON) are kept as their size only. */
export const MAX_RECORDED_PARAMETER_BYTES = 16 * 1024;
/** A synthesis beyond this (as JSON) is cut (a string) or kept as its size only. */
export const MAX_RECORDED_SYNTHESIS_BYTES = 64 * 1024;
/** Rounds kept per step: the first and the newest. */
export const MAX_RECORDED_ROUNDS = 8;
/** Hook outcomes, decisions and lifecycle events kept per record: the newest. */
export const MAX_RECORDED_EVENTS = 200;

export interface RecordInput {
  readonly mode: PlanMode;
  readonly workflow?: string;
  readonly conversation_id?: string;
  readonly request_id?: string;
  readonly original_request_id?: string;
  readonly status: ExecutionStatus;
  readonly plan: Plan;
  readonly steps: readonly StepResult[];
  /** Every round the pipeline was told about, in order. */
  readonly rounds: readonly StepRound[];
  readonly hooks: readonly HookOutcome[];
  readonly decisions: readonly InterceptorDecision[];
  readonly error?: { readonly code: string; readonly message: string };
  /** What a paused request answered instead (HITL: `{status: "interrupted", checkpoint_id}`). */
  readonly paused?: unknown;
  /** The checkpoint whose decision resumed this run. */
  readonly resumed?: { readonly checkpoint_id: string; readonly decision?: string };
  readonly synthesis?: unknown;
  /** Each context source's evidence (skills: which skills and versions shaped the run). */
  readonly context?: Readonly<Record<string, unknown>>;
  readonly started_at: string;
  readonly finished_at: string;
  /** The record a resumed run replaces, when the store still has it. */
  readonly earlier?: ExecutionRecord;
}

const jsonBytes = (value: unknown): number => {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? "");
  } catch {
    return Number.POSITIVE_INFINITY; // a cycle or a BigInt: not something to keep
  }
};

/** `value` when it is small enough, else a marker saying how large it was. */
export function bounded(value: unknown, maxBytes: number): unknown {
  const bytes = jsonBytes(value);
  if (bytes <= maxBytes) return value;
  if (typeof value === "string") return `${value.slice(0, Math.floor(maxBytes / 3))}…`;
  return { truncated: true, ...(Number.isFinite(bytes) ? { bytes } : {}) };
}

function recordedRound({ step_id: _id, parameters, ...rest }: StepRound): RecordedRound {
  return { ...rest, ...(parameters === undefined ? {} : { parameters: bounded(parameters, MAX_RECORDED_PARAMETER_BYTES) }) };
}

/** The first round and the newest ones: the first says what was planned, the last what finally ran. */
function keptRounds(rounds: readonly RecordedRound[]): readonly RecordedRound[] {
  return rounds.length <= MAX_RECORDED_ROUNDS ? rounds : [rounds[0]!, ...rounds.slice(-(MAX_RECORDED_ROUNDS - 1))];
}

/** What an earlier run of the request sent for a step: its rounds, or the one round its result tells of. */
function roundsBefore(before: RecordedStep | undefined): readonly RecordedRound[] {
  if (before === undefined || before.attempts === 0) return [];
  if (before.rounds !== undefined) return before.rounds;
  if (before.status === "skipped") return [];
  return [
    {
      round: 0,
      ...(before.parameters === undefined ? {} : { parameters: before.parameters }),
      attempts: before.attempts,
      status: before.status,
      ...(before.error === undefined ? {} : { error: before.error }),
    },
  ];
}

function recordedSteps(input: RecordInput): RecordedStep[] {
  const byStep = new Map<string, RecordedRound[]>();
  for (const round of input.rounds) {
    const list = byStep.get(round.step_id) ?? [];
    list.push(recordedRound(round));
    byStep.set(round.step_id, list);
  }
  const earlier = new Map((input.earlier?.steps ?? []).map((step) => [step.step_id, step]));
  return input.steps.map((step) => {
    const rounds = byStep.get(step.step_id);
    // A step this run did not dispatch (completed before a pause) keeps what its first run recorded.
    if (rounds === undefined) {
      const before = earlier.get(step.step_id);
      return {
        ...step,
        ...(before?.parameters === undefined ? {} : { parameters: before.parameters }),
        ...(before?.rounds === undefined ? {} : { rounds: before.rounds }),
      };
    }
    const last = rounds[rounds.length - 1]!;
    // A step sent again by a resumed run (a human's correction): what its first run sent stays in the record.
    const all = [...roundsBefore(earlier.get(step.step_id)), ...rounds];
    return {
      ...step,
      ...(last.parameters === undefined ? {} : { parameters: last.parameters }),
      ...(all.length > 1 ? { rounds: keptRounds(all) } : {}),
    };
  });
}

const newest = <T>(items: readonly T[]): readonly T[] => (items.length <= MAX_RECORDED_EVENTS ? items : items.slice(-MAX_RECORDED_EVENTS));

/** The checkpoint a paused request's answer names (HITL's 202 body), read by shape: orchestration does not know HITL. */
function checkpointOf(paused: unknown): string | undefined {
  const id = (paused as { checkpoint_id?: unknown } | null | undefined)?.checkpoint_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

function hitlState(input: RecordInput): HitlRecordState | undefined {
  const waiting = checkpointOf(input.paused);
  if (waiting !== undefined) return { checkpoint_id: waiting, state: "waiting" };
  if (input.resumed !== undefined)
    return {
      checkpoint_id: input.resumed.checkpoint_id,
      state: "resumed",
      ...(input.resumed.decision === undefined ? {} : { decision: input.resumed.decision }),
    };
  return input.earlier?.hitl;
}

function lifecycle(input: RecordInput): NonNullable<ExecutionRecord["lifecycle"]> {
  const ended: LifecycleEvent = input.paused !== undefined ? "paused" : input.status === "success" ? "completed" : input.status;
  const events: { event: LifecycleEvent; at: string }[] = [...(input.earlier?.lifecycle ?? [])];
  events.push({ event: input.earlier === undefined ? "started" : "resumed", at: input.started_at }, { event: ended, at: input.finished_at });
  return newest(events);
}

const contextOf = (context: Readonly<Record<string, unknown>> | undefined) => (context === undefined ? {} : { context });

export function executionEntry(input: RecordInput): ExecutionRecord {
  const { plan, earlier } = input;
  const decisions = newest([...(earlier?.decisions ?? []), ...input.decisions]);
  const hitl = hitlState(input);
  const requestId = input.request_id;
  const original = earlier?.original_request_id ?? input.original_request_id ?? requestId;
  return {
    plan_id: plan.plan_id,
    ...(requestId === undefined ? {} : { request_id: requestId }),
    ...(original === undefined ? {} : { original_request_id: original }),
    ...(input.workflow === undefined ? {} : { workflow: input.workflow }),
    ...(input.conversation_id === undefined ? {} : { conversation_id: input.conversation_id }),
    mode: input.mode,
    status: input.status,
    plan,
    steps: recordedSteps(input),
    ...(plan.phases === undefined ? {} : { phases: plan.phases }),
    // `order` is the hook's place in the request's list, across a pause and its resume.
    hooks: newest([...(earlier?.hooks ?? []), ...input.hooks.map((hook, i) => ({ ...hook, order: (earlier?.hooks.length ?? 0) + i + 1 }))]),
    ...(decisions.length === 0 ? {} : { decisions }),
    ...(hitl === undefined ? {} : { hitl }),
    ...(input.synthesis === undefined ? {} : { synthesis: bounded(input.synthesis, MAX_RECORDED_SYNTHESIS_BYTES) }),
    ...(input.error === undefined ? {} : { error: input.error }),
    // A resumed run skips planning, where context is gathered: it keeps its first run's evidence.
    ...contextOf(input.context ?? earlier?.context),
    lifecycle: lifecycle(input),
    // The first run's start: the record keeps its place in the list, and its duration covers the pause.
    started_at: earlier?.started_at ?? input.started_at,
    finished_at: input.finished_at,
  };
}
