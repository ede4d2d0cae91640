/**
 * What a prompt shows of a request's step results (the synthesis, a continuation): each result as
 * it is while it fits; one over the per-step budget (`MANIFOLD_RESULT_BUDGET_BYTES`), or the biggest
 * ones while all of them together are over the prompt's share (the per-request budget, or what the
 * prompt has room for), distilled by map-reduce (distill.ts); a distillation that fails trimmed
 * structurally instead. Only the prompt sees this: templates between steps read the executor's
 * scope, the full outputs.
 *
 * `content_lost` (on `result_trim.completed`) says whether the model is shown less than it could
 * know of a result: false for a distillate (every chunk was read by the model, a summary of all of
 * it is shown; nothing was dropped unseen), true for a structural trim (what was cut was never read)
 * and for a distillate cut to its share (its end is not shown).
 *
 * Sizes are prompt weights of each step's entry where it stands in the shown JSON (its key, wrapper,
 * indentation, escaping): the room is shared so that the whole fits, and the last guard (`fitted`,
 * whose first level cuts every string) is left for many small results, never for distillates that
 * filled what they were asked for.
 */
import type { Distiller, DistillReason } from "./distill.js";
import { promptWeight, splitBytes } from "./distill-chunks.js";
import { llmEventScope, requestEvent } from "./run-context.js";
import { trimFigures, trimResults, type TrimResult } from "./trim.js";

/** A result smaller than this is never distilled (a summary would not be much smaller). */
const MIN_DISTILLED_BYTES = 1024;
/** The smallest distillate asked for. */
const MIN_TARGET_BYTES = 512;
/** The shortest a distillate too long for its share is cut to. */
const MIN_CUT_BYTES = 128;
/**
 * Part of a share not asked of the model: the share is prompt weight, the model is asked for bytes,
 * and JSON escaping (a newline is `\n`) makes a summary weigh a little more than its bytes.
 */
const ESCAPE_MARGIN = 1 / 32;

export interface ShownStep {
  readonly step_id: string;
  /** `component.capability`. */
  readonly capability: string;
  /** Present for a completed step. */
  readonly output?: unknown;
  /** What the prompt shows of a step that did not complete (its status, its error). */
  readonly other?: unknown;
}

export interface ShowOptions {
  /** The user's request, which a distillate serves. */
  readonly request: string;
  /** Most bytes of one step's result shown as it is (`resultBudgetBytes`; the total budget when that is smaller). */
  readonly stepBudget: number;
  /** Most bytes of all results together. */
  readonly totalBudget: number;
  /** The total budget is the prompt's room, smaller than the per-request budget: distillations for it are reason `context`. */
  readonly contextBound: boolean;
  /** Outputs shown as `{"output": …}` (synthesis) or bare (a continuation). */
  readonly nest: boolean;
  /** Calls to leave for what follows the distillations (a continuation plan). @defaultValue 0 */
  readonly reserveCalls?: number;
  /** Said on the events: `synthesis` or `continuation`. */
  readonly purpose: string;
}

const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");
const sizeOf = (value: unknown): number => byteLength(JSON.stringify(value, null, 1) ?? "null");
const originalBytes = (value: unknown): number => byteLength(JSON.stringify(value) ?? "null");

/**
 * Prompt weight of the entry `"id": value` in the shown object (indented as it is there), with the
 * `,\n` that separates it from the next: the whole weighs its entries' sum plus 2 (its braces).
 */
const entryWeight = (id: string, value: unknown): number => promptWeight(JSON.stringify({ [id]: value }, null, 1)) - 2;
/** Prompt weight of `text` inside a JSON string (quotes, newlines and `<` escaped), without the quotes. */
const escapedWeight = (text: string): number => promptWeight(JSON.stringify(text)) - 2;

const shownAsIs = (step: ShownStep, nest: boolean): unknown => (step.output === undefined ? step.other : nest ? { output: step.output } : step.output);
const summaryOf = (text: string, original: number, cut: boolean) => ({
  distilled_summary: text,
  note: `a summary of the whole ${original}-byte output, every part of it read${cut ? "; cut to fit the prompt, its end is not shown" : ""}`,
});

/** What one distilled step may take of the prompt. */
interface Allowance {
  readonly reason: DistillReason;
  /** Prompt weight of the step's entry (key, wrapper, indentation and content). */
  readonly slot: number;
  /** Prompt weight of its summary, escaped (the slot less the wrapper, at most the step budget). */
  readonly share: number;
  /** Bytes the distillate is asked for. */
  readonly targetBytes: number;
}

/** The steps whose outputs are distilled, with the reason, and what each may take of the prompt. */
function choose(steps: readonly ShownStep[], { stepBudget: configured, totalBudget, contextBound, nest }: ShowOptions): Map<string, Allowance> {
  const sizes = new Map(steps.map((s) => [s.step_id, sizeOf(s.output !== undefined ? { output: s.output } : s.other)]));
  const weights = new Map(steps.map((s) => [s.step_id, entryWeight(s.step_id, shownAsIs(s, nest))]));
  const marked = new Map<string, DistillReason>();
  // Over the configured budget: `threshold`; within it but over what the prompt has room for: `context`.
  const stepBudget = Math.min(configured, totalBudget);
  for (const s of steps) {
    const size = sizes.get(s.step_id)!;
    if (s.output !== undefined && size > stepBudget) marked.set(s.step_id, size > configured || !contextBound ? "threshold" : "context");
  }
  const unmarked = (): number => 2 + steps.reduce((n, s) => n + (marked.has(s.step_id) ? 0 : weights.get(s.step_id)!), 0);
  // Over the total: the biggest results are distilled until the rest leaves the distillates half of it.
  while (marked.size === 0 ? unmarked() > totalBudget : unmarked() > totalBudget / 2) {
    const next = steps
      .filter((s) => s.output !== undefined && !marked.has(s.step_id) && sizes.get(s.step_id)! > MIN_DISTILLED_BYTES)
      .sort((a, b) => sizes.get(b.step_id)! - sizes.get(a.step_id)!)[0];
    if (next === undefined) break;
    marked.set(next.step_id, contextBound ? "context" : "threshold");
  }
  const slot = marked.size === 0 ? 0 : Math.floor((totalBudget - unmarked()) / marked.size);
  const allowances = new Map<string, Allowance>();
  for (const s of steps) {
    const reason = marked.get(s.step_id);
    // One within the step budget that fits its slot after all is shown as it is.
    if (reason === undefined || (sizes.get(s.step_id)! <= stepBudget && weights.get(s.step_id)! <= slot)) continue;
    const wrapper = entryWeight(s.step_id, summaryOf("", originalBytes(s.output), true));
    const share = Math.min(stepBudget, slot - wrapper);
    const targetBytes = Math.max(MIN_TARGET_BYTES, Math.min(stepBudget, Math.floor(share * (1 - ESCAPE_MARGIN))));
    allowances.set(s.step_id, { reason, slot, share, targetBytes });
  }
  return allowances;
}

/** `text` cut (marked with `…`) to an escaped weight of at most `max`, on a character. */
function cutToWeight(text: string, max: number): string {
  let size = max;
  for (;;) {
    const cut = `${splitBytes(text, size)[0] ?? ""}…`;
    const weight = escapedWeight(cut);
    if (weight <= max || size <= 4) return cut;
    size = Math.max(4, Math.min(size - 1, Math.floor((size * max) / weight) - 3));
  }
}

/**
 * What is shown of a result a distillation could not summarise: trimmed structurally until its
 * entry fits its slot (at most the step budget), reported as `result_trim.structural` then
 * `result_trim.completed` (content_lost true: nothing read what was cut).
 */
function fallback(step: ShownStep, allowance: Allowance, { nest, stepBudget }: ShowOptions, attributes: Readonly<Record<string, string>>): unknown {
  const shown = (t: TrimResult): unknown => {
    const value = t.method === "bytes" ? t.text : JSON.parse(t.text);
    return nest ? { output: value } : value;
  };
  const around = entryWeight(step.step_id, nest ? { output: null } : null) - 4;
  const limit = Math.min(allowance.slot, stepBudget + around);
  let budget = Math.max(256, limit - around);
  let trimmed = trimResults(step.output, budget);
  for (let round = 0; round < 4 && entryWeight(step.step_id, shown(trimmed)) > limit; round += 1) {
    budget = Math.max(256, Math.floor((budget * limit) / entryWeight(step.step_id, shown(trimmed))) - 16);
    trimmed = trimResults(step.output, budget);
  }
  const figures = { ...llmEventScope(), ...attributes, ...trimFigures(trimmed) };
  requestEvent("result_trim.structural", figures);
  requestEvent("result_trim.completed", figures);
  return shown(trimmed);
}

/** A distilled step's entry: its summary, cut to its share when it weighs more, the event saying which. */
function distilledEntry(text: string, original: number, allowance: Allowance, attributes: Readonly<Record<string, string>>): unknown {
  const cut = escapedWeight(text) > allowance.share;
  const shown = cut ? cutToWeight(text, Math.max(MIN_CUT_BYTES, allowance.share)) : text;
  requestEvent("result_trim.completed", {
    ...llmEventScope(),
    ...attributes,
    method: "distillation",
    // A summary cut short is missing what its end said: the model is shown less than was read.
    content_lost: cut,
    original_bytes: original,
    trimmed_bytes: byteLength(shown),
    fields_kept: 0,
    fields_dropped: 0,
  });
  return summaryOf(shown, original, cut);
}

/**
 * The results as JSON text by step id, for a prompt: within `totalBudget` bytes of prompt weight
 * (escaping counted), big ones distilled (or trimmed when that fails), each with its events.
 */
export async function showResults(distiller: Distiller, steps: readonly ShownStep[], options: ShowOptions): Promise<string> {
  const { request, nest, purpose, totalBudget } = options;
  const allowances = choose(steps, options);
  const shown: Record<string, unknown> = {};
  for (const step of steps) {
    const allowance = allowances.get(step.step_id);
    if (step.output === undefined || allowance === undefined) {
      shown[step.step_id] = shownAsIs(step, nest);
      continue;
    }
    const attributes = { step_id: step.step_id, purpose };
    // Sequential: each distillation checks the call budget the ones before it left.
    const outcome = await distiller.distil({
      value: step.output,
      request,
      stepId: step.step_id,
      capability: step.capability,
      targetBytes: allowance.targetBytes,
      reason: allowance.reason,
      reserveCalls: options.reserveCalls ?? 0,
    });
    shown[step.step_id] = outcome.ok
      ? distilledEntry(outcome.text, outcome.original_bytes, allowance, attributes)
      : fallback(step, allowance, options, attributes);
  }
  return fitted(shown, totalBudget, purpose);
}

/** The whole within the budget by prompt weight: a last guard (many small results), the cut reported. */
function fitted(shown: Record<string, unknown>, totalBudget: number, purpose: string): string {
  let budget = totalBudget;
  let trimmed = trimResults(shown, budget);
  for (let round = 0; round < 4 && promptWeight(trimmed.text) > totalBudget; round += 1) {
    budget = Math.max(256, Math.floor((budget * totalBudget) / promptWeight(trimmed.text)) - 64);
    trimmed = trimResults(shown, budget);
  }
  if (trimmed.method !== "none")
    requestEvent(purpose === "synthesis" ? "result_trim.synthesis" : "result_trim.completed", { ...llmEventScope(), purpose, ...trimFigures(trimmed) });
  return trimmed.text;
}
