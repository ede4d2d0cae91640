/**
 * The LLM Debug and Execution DAG views' data: the debug stores' records, shaped for a list. Lists
 * are bounded whatever the records hold (a record may carry 100 interactions of 64 KiB each, an
 * execution every step's output): they keep previews and the graph, and the full record is one
 * request away (`/api/llm-debug/<id>`, `/api/executions/<id>`).
 */
import type { LlmDebugRecord, LlmInteraction } from "../llm/index.js";
import type { Checkpoint } from "../hitl/index.js";
import type { ExecutionRecord, RecordedRound, RecordedStep } from "../orchestration/served.js";
import { skillLabels } from "./skill-evidence.js";

/** Prompt and response previews in a list, in UTF-8 bytes. */
export const PREVIEW_BYTES = 1024;
/** Interactions per record in a list (the newest); the detail has every one the store kept. */
export const LISTED_INTERACTIONS = 20;

export interface InteractionPreview extends Omit<LlmInteraction, "prompt" | "response"> {
  readonly prompt: string;
  readonly response: string;
  /** Set when the prompt or response shown is cut: the detail has them whole. */
  readonly preview_cut?: true;
}

export interface LlmRecordSummary extends Omit<LlmDebugRecord, "interactions"> {
  readonly interaction_count: number;
  readonly total_tokens: number;
  readonly duration_ms: number;
  /** Bytes of every prompt the record sized (all its interactions, not only the listed ones); calls recorded without a size add nothing. */
  readonly prompt_bytes: number;
  readonly interactions: readonly InteractionPreview[];
}

/** `text` cut to at most `maxBytes` UTF-8 bytes, never inside a character. */
function cutUtf8(text: string, maxBytes: number): { text: string; cut: boolean } {
  // Every UTF-16 unit is at most 3 bytes: short texts need no encoding.
  if (text.length * 3 <= maxBytes) return { text, cut: false };
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return { text, cut: false };
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString("utf8"), cut: true };
}

function preview(interaction: LlmInteraction): InteractionPreview {
  const prompt = cutUtf8(interaction.prompt, PREVIEW_BYTES);
  const response = cutUtf8(interaction.response, PREVIEW_BYTES);
  return { ...interaction, prompt: prompt.text, response: response.text, ...(prompt.cut || response.cut ? { preview_cut: true } : {}) };
}

export function llmSummary(record: LlmDebugRecord): LlmRecordSummary {
  const { interactions, ...rest } = record;
  let tokens = 0;
  let duration = 0;
  let promptBytes = 0;
  for (const interaction of interactions) {
    tokens += interaction.total_tokens;
    duration += interaction.duration_ms;
    promptBytes += interaction.prompt_bytes ?? 0;
  }
  return {
    ...rest,
    interaction_count: interactions.length,
    total_tokens: tokens,
    duration_ms: Math.round(duration * 1000) / 1000,
    prompt_bytes: promptBytes,
    interactions: interactions.slice(-LISTED_INTERACTIONS).map(preview),
  };
}

/** One node of an execution's graph: the plan step with its result, when it ran. */
export interface ExecutionNode {
  readonly step_id: string;
  readonly component: string;
  readonly capability: string;
  readonly depends_on: readonly string[];
  /** The step's result status, `waiting_approval` for the step a checkpoint holds, else `not_run`. */
  readonly status: "completed" | "failed" | "skipped" | "waiting_approval" | "not_run";
  readonly duration_ms?: number;
  readonly attempts?: number;
  readonly started_at?: string;
  readonly error?: { readonly code: string; readonly message: string };
  readonly reason?: string;
  /** Natural mode: the phase that planned the step. */
  readonly phase?: number;
  /** What the step was last sent, as JSON cut to a preview. */
  readonly parameters?: string;
  /** Each round, when an after-step retry (a semantic retry) sent the step round again. */
  readonly rounds?: readonly RoundPreview[];
}

/** A round of a step as the view shows it: its parameters as JSON cut to a preview. */
export interface RoundPreview extends Omit<RecordedRound, "parameters"> {
  readonly parameters?: string;
}

/** One phase of natural mode's loop, for the graph's bands. */
export interface PhaseSummary {
  readonly phase: number;
  readonly reason: string;
  readonly steps: number;
}

export interface ExecutionSummary {
  readonly plan_id: string;
  readonly mode: string;
  readonly workflow?: string;
  readonly status: ExecutionRecord["status"];
  readonly started_at: string;
  readonly finished_at: string;
  readonly duration_ms: number;
  /** What was asked, cut for a list. */
  readonly request?: string;
  /** The conversation the run belongs to, when it is known (grouping key of the view). */
  readonly conversation_id?: string;
  readonly checkpoint_id?: string;
  readonly error?: { readonly code: string; readonly message: string };
  readonly hooks: number;
  readonly nodes: readonly ExecutionNode[];
  readonly request_id?: string;
  readonly revision?: number;
  /** Natural mode's phases, when the loop planned more than one. */
  readonly phases?: readonly PhaseSummary[];
  /** Steps sent round more than once. */
  readonly retried_steps: number;
  /** The skills that shaped the run (`namespace/name@version`), when any did. */
  readonly skills?: readonly string[];
}

const jsonPreview = (value: unknown): string => {
  const { text, cut } = cutUtf8(JSON.stringify(value) ?? "null", PREVIEW_BYTES);
  return cut ? `${text}…` : text;
};

/** What a node shows of what its step was sent: the last parameters, and every round when there were several. */
function sent(step: RecordedStep): Pick<ExecutionNode, "parameters" | "rounds"> {
  const rounds = step.rounds?.map(({ parameters, ...round }) => ({ ...round, ...(parameters === undefined ? {} : { parameters: jsonPreview(parameters) }) }));
  return {
    ...(step.parameters === undefined ? {} : { parameters: jsonPreview(step.parameters) }),
    ...(rounds === undefined || rounds.length < 2 ? {} : { rounds }),
  };
}

const MAX_REQUEST_TEXT = 300;

/** A conversation id the record itself carries (newer records may), else the one its checkpoint recorded. */
function conversationOf(record: ExecutionRecord, checkpoint: Checkpoint | undefined): string | undefined {
  const own = (record as { conversation_id?: unknown }).conversation_id;
  if (typeof own === "string" && own !== "") return own;
  return checkpoint?.user_context.conversation_id ?? checkpoint?.user_context.session_id;
}

/** The skills that shaped the run, left out of the summary when none did. */
function skillsOf(record: ExecutionRecord): Pick<ExecutionSummary, "skills"> {
  const skills = skillLabels(record);
  return skills.length === 0 ? {} : { skills };
}

/**
 * The record as its graph: every plan step (a plan step with no result did not run; the one a
 * checkpoint holds is waiting for approval), plus results the plan does not list (a record without
 * a plan: the request stopped before planning finished).
 */
export function executionSummary(record: ExecutionRecord, checkpoint: Checkpoint | undefined): ExecutionSummary {
  const results = new Map(record.steps.map((step) => [step.step_id, step]));
  const blocked = checkpoint?.current_step?.step_id;
  const planned = record.plan?.steps ?? [];
  const phaseOf = new Map<string, number>();
  for (const phase of record.phases ?? []) for (const id of phase.step_ids) phaseOf.set(id, phase.phase);
  const inPhase = (id: string, own?: number): { phase?: number } => {
    const phase = own ?? phaseOf.get(id);
    return phase === undefined ? {} : { phase };
  };
  const nodes: ExecutionNode[] = planned.map((step) => {
    const result = results.get(step.step_id);
    results.delete(step.step_id);
    const base = {
      step_id: step.step_id,
      component: step.agent_name,
      capability: step.metadata.capability,
      depends_on: step.depends_on,
      ...inPhase(step.step_id, step.phase),
    };
    // The step a checkpoint holds is recorded as skipped (the run stopped before it): it is waiting, not skipped for good.
    const waiting = step.step_id === blocked && record.status === "interrupted" && (result === undefined || result.status === "skipped");
    if (waiting) return { ...base, status: "waiting_approval", ...(result?.reason === undefined ? {} : { reason: result.reason }) };
    if (result === undefined) return { ...base, status: "not_run" };
    return {
      ...base,
      status: result.status,
      duration_ms: result.duration_ms,
      attempts: result.attempts,
      ...(result.started_at === undefined ? {} : { started_at: result.started_at }),
      ...(result.error === undefined ? {} : { error: { code: result.error.code, message: result.error.message } }),
      ...(result.reason === undefined ? {} : { reason: result.reason }),
      ...sent(result),
    };
  });
  for (const result of results.values()) {
    nodes.push({
      step_id: result.step_id,
      component: result.component,
      capability: result.capability,
      depends_on: [],
      status: result.status,
      duration_ms: result.duration_ms,
      attempts: result.attempts,
      ...(result.error === undefined ? {} : { error: { code: result.error.code, message: result.error.message } }),
      ...inPhase(result.step_id),
      ...sent(result),
    });
  }
  const conversation = conversationOf(record, checkpoint);
  const request = record.plan?.original_request;
  const duration = Date.parse(record.finished_at) - Date.parse(record.started_at);
  return {
    plan_id: record.plan_id,
    mode: record.mode,
    ...(record.workflow === undefined ? {} : { workflow: record.workflow }),
    status: record.status,
    started_at: record.started_at,
    finished_at: record.finished_at,
    duration_ms: Number.isFinite(duration) ? duration : 0,
    ...(request === undefined ? {} : { request: request.length > MAX_REQUEST_TEXT ? `${request.slice(0, MAX_REQUEST_TEXT)}…` : request }),
    ...(conversation === undefined ? {} : { conversation_id: conversation }),
    ...(checkpoint === undefined
      ? record.hitl === undefined
        ? {}
        : { checkpoint_id: record.hitl.checkpoint_id }
      : { checkpoint_id: checkpoint.checkpoint_id }),
    ...(record.error === undefined ? {} : { error: record.error }),
    hooks: record.hooks.length,
    nodes,
    ...(record.request_id === undefined ? {} : { request_id: record.request_id }),
    ...(record.revision === undefined ? {} : { revision: record.revision }),
    ...((record.phases?.length ?? 0) < 2
      ? {}
      : { phases: record.phases!.map((phase) => ({ phase: phase.phase, reason: phase.reason, steps: phase.step_ids.length })) }),
    retried_steps: nodes.filter((node) => node.rounds !== undefined).length,
    ...skillsOf(record),
  };
}
