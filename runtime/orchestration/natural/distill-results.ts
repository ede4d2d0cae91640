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
 * it is shown; nothing was dropped unseen), true for a structural trim (what was cut was never read).
 */
import type { Distiller, DistillReason } from "./distill.js";
import { promptWeight } from "./distill-chunks.js";
import { llmEventScope, requestEvent } from "./run-context.js";
import { structuralFallback, trimFigures, trimResults } from "./trim.js";

/** A result smaller than this is never distilled (a summary would not be much smaller). */
const MIN_DISTILLED_BYTES = 1024;
/** The smallest distillate asked for. */
const MIN_TARGET_BYTES = 512;

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

/** The steps whose outputs are distilled, with the reason, and the bytes each distillate may have. */
function choose(steps: readonly ShownStep[], { stepBudget: configured, totalBudget, contextBound }: ShowOptions) {
  const sizes = new Map(steps.map((s) => [s.step_id, sizeOf(s.output !== undefined ? { output: s.output } : s.other)]));
  const marked = new Map<string, DistillReason>();
  // Over the configured budget: `threshold`; within it but over what the prompt has room for: `context`.
  const stepBudget = Math.min(configured, totalBudget);
  for (const s of steps) {
    const size = sizes.get(s.step_id)!;
    if (s.output !== undefined && size > stepBudget) marked.set(s.step_id, size > configured || !contextBound ? "threshold" : "context");
  }
  const unmarked = (): number => steps.reduce((n, s) => n + (marked.has(s.step_id) ? 0 : sizes.get(s.step_id)!), 0);
  // Over the total: the biggest results are distilled until the rest leaves the distillates half of it.
  while (marked.size === 0 ? unmarked() > totalBudget : unmarked() > totalBudget / 2) {
    const next = steps
      .filter((s) => s.output !== undefined && !marked.has(s.step_id) && sizes.get(s.step_id)! > MIN_DISTILLED_BYTES)
      .sort((a, b) => sizes.get(b.step_id)! - sizes.get(a.step_id)!)[0];
    if (next === undefined) break;
    marked.set(next.step_id, contextBound ? "context" : "threshold");
  }
  const target = marked.size === 0 ? 0 : Math.floor((totalBudget - unmarked()) / marked.size) - 64;
  const targetBytes = Math.max(MIN_TARGET_BYTES, Math.min(stepBudget, target));
  // One that fits its share after all is shown as it is.
  for (const id of [...marked.keys()]) if (sizes.get(id)! <= targetBytes) marked.delete(id);
  return { marked, targetBytes };
}

/**
 * The results as JSON text by step id, for a prompt: within `totalBudget` bytes of prompt weight
 * (escaping counted), big ones distilled (or trimmed when that fails), each with its events.
 */
export async function showResults(distiller: Distiller, steps: readonly ShownStep[], options: ShowOptions): Promise<string> {
  const { request, nest, purpose, totalBudget } = options;
  const { marked, targetBytes } = choose(steps, options);
  const shown: Record<string, unknown> = {};
  for (const step of steps) {
    const reason = marked.get(step.step_id);
    if (step.output === undefined || reason === undefined) {
      shown[step.step_id] = step.output === undefined ? step.other : nest ? { output: step.output } : step.output;
      continue;
    }
    const attributes = { step_id: step.step_id, purpose };
    // Sequential: each distillation checks the call budget the ones before it left.
    const outcome = await distiller.distil({
      value: step.output,
      request,
      stepId: step.step_id,
      capability: step.capability,
      targetBytes,
      reason,
      reserveCalls: options.reserveCalls ?? 0,
    });
    if (outcome.ok) {
      const { original_bytes, distilled_bytes } = outcome;
      requestEvent("result_trim.completed", {
        ...llmEventScope(),
        ...attributes,
        method: "distillation",
        content_lost: false,
        original_bytes,
        trimmed_bytes: distilled_bytes,
        fields_kept: 0,
        fields_dropped: 0,
      });
      shown[step.step_id] = { distilled_summary: outcome.text, note: `a summary of the whole ${original_bytes}-byte output, every part of it read` };
      continue;
    }
    const trimmed = structuralFallback(step.output, targetBytes, attributes);
    const text = trimmed.method === "bytes" ? trimmed.text : JSON.parse(trimmed.text);
    shown[step.step_id] = nest ? { output: text } : text;
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
