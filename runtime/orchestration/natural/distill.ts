/**
 * Result distillation (issue 28): a step result too big to show a model is summarised against the
 * request by map-reduce instead of cut. Stage 1 summarises each chunk (cut by the result's shape,
 * distill-chunks.ts) in parallel, stage 2 merges the summaries (more rounds only if they still do
 * not fit one prompt). Every prompt fits the request's prompt budget; the chunk count is bounded
 * (`MAX_MAP_CALLS`: bigger results get bigger chunks, up to what a prompt holds) and the calls are
 * checked against the request's call budget before the first is made. A distillate is kept by the
 * content hash of the result and the request in a bounded LRU: the same result for the same request
 * is not distilled twice.
 *
 * A distillation that cannot run or fails (budget, a result bigger than the chunks can hold, a model
 * error, an answer cut short, filtered or empty at any stage, the request's end) reports
 * `result_distill.llm_failed` and leaves the caller to trim; a failed one is never cached.
 */
import { createHash } from "node:crypto";
import { parametersHash } from "../../context/index.js";
import { toManifoldError } from "../../errors/index.js";
import { promptBytes, type LlmMessage, type LlmProvider } from "../../llm/index.js";
import { systemClock, type Clock } from "../../util/index.js";
import { promptBudgetBytes } from "./adaptive.js";
import { CONTEXT_BYTES, chunkResult, promptWeight } from "./distill-chunks.js";
import { mapMessages, reduceMessages, type DistillStep } from "./distill-prompts.js";
import { currentNaturalRun, llmEventScope, requestEvent, type NaturalRun } from "./run-context.js";

/** Most stage-1 calls one result gets: past it, the result is more than distillation may cost, and is trimmed. */
export const MAX_MAP_CALLS = 8;
/** The smallest summary a stage asks for. */
const MIN_SUMMARY_BYTES = 256;
/** Bytes of every prompt kept free of measured content (labels, part headers). */
const SLACK_BYTES = 256;

export type DistillReason = "threshold" | "context";
/** `incomplete`: an answer cut short (`length`, or past the bytes asked), filtered, or empty. */
export type DistillFailure = "budget" | "too_large" | "llm_error" | "incomplete" | "aborted" | "no_run";

export interface DistillInput extends DistillStep {
  readonly value: unknown;
  /** Most bytes of the distillate. */
  readonly targetBytes: number;
  /** `threshold`: over a result budget; `context`: it would not fit the prompt. */
  readonly reason: DistillReason;
  /** Model calls to leave for what follows (a continuation plan), beyond the synthesis' own. @defaultValue 0 */
  readonly reserveCalls?: number;
}

export type DistillOutcome =
  | { readonly ok: true; readonly text: string; readonly original_bytes: number; readonly distilled_bytes: number; readonly cached: boolean }
  | { readonly ok: false; readonly reason: DistillFailure; readonly original_bytes: number };

export interface Distiller {
  distil(input: DistillInput): Promise<DistillOutcome>;
}

export interface DistillerOptions {
  /** The budgeted provider (every call charged to the request). */
  readonly provider: LlmProvider;
  /** What `duration_ms` is measured on. @defaultValue the system clock */
  readonly clock?: Clock;
  /** @defaultValue {@link MAX_MAP_CALLS} */
  readonly maxMapCalls?: number;
  /** Distillates kept. @defaultValue 256 */
  readonly cacheEntries?: number;
  /** Bytes of distillates kept. @defaultValue 8 MiB */
  readonly cacheBytes?: number;
}

const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");
const clamp = (value: number, min: number, max: number): number => Math.max(min, Math.min(max, value));

/** A least-recently-used map bounded in entries and bytes (everything a client can make the server hold is). */
function createLru(maxEntries: number, maxBytes: number) {
  const entries = new Map<string, string>();
  let bytes = 0;
  return {
    get(key: string): string | undefined {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key: string, value: string): void {
      const size = key.length + byteLength(value);
      if (size > maxBytes) return;
      const old = entries.get(key);
      if (old !== undefined) bytes -= key.length + byteLength(old);
      entries.delete(key);
      entries.set(key, value);
      bytes += size;
      for (const [oldest, text] of entries) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        entries.delete(oldest);
        bytes -= oldest.length + byteLength(text);
      }
    },
  };
}

/** Model calls the request may still make for this, leaving the synthesis its call and `reserve` more. */
const callsLeft = (run: NaturalRun, reserve: number): number => run.settings.maxLlmCalls - run.calls - (run.synthesise ? 1 : 0) - reserve;

/** Groups of summaries whose reduce prompt fits `room` (by prompt weight), in order. */
function groupsOf(summaries: readonly string[], room: number): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const summary of summaries) {
    const weight = promptWeight(summary) + 16;
    if (current.length > 0 && size + weight > room) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(summary);
    size += weight;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

class Failure extends Error {
  /** `finish_reason` of an incomplete answer (`empty` for no text). */
  constructor(
    readonly reason: DistillFailure,
    readonly finish?: string,
  ) {
    super(reason);
  }
}

/**
 * Why an answer cannot stand for what it summarises, or undefined when it can: cut short (by the
 * model, `length`, or by the bytes kept, `truncated`), stopped for another reason than its end
 * (`content_filter`, …) or empty. A summary missing its end would be shown as if it were whole.
 * An endpoint that names no finish reason is taken at its word.
 */
function incomplete({ text, truncated, finish_reason }: { text: string; truncated?: true; finish_reason: string | undefined }): string | undefined {
  if (truncated === true) return "length";
  if (finish_reason !== undefined && finish_reason !== "stop") return finish_reason;
  return text.trim() === "" ? "empty" : undefined;
}

interface Deps {
  readonly provider: LlmProvider;
  readonly clock: Clock;
  readonly maxMapCalls: number;
}

/** One text call of the `result_distillation` interaction, reported to the run's record. */
async function ask({ provider }: Deps, run: NaturalRun, messages: LlmMessage[], maxBytes: number, signal: AbortSignal): Promise<string> {
  const started = Date.now();
  try {
    const completion = await provider.complete({
      phase: "result_distillation",
      messages,
      temperature: 0,
      maxTokens: Math.ceil(maxBytes / 4) + 16,
      maxOutputBytes: maxBytes,
      signal,
    });
    run.record?.({ type: "result_distillation", messages, attempt: 1, started, model: provider.model, completion });
    const finish = incomplete(completion);
    if (finish !== undefined) throw new Failure("incomplete", finish);
    return completion.text.trim();
  } catch (error) {
    run.record?.({ type: "result_distillation", messages, attempt: 1, started, model: provider.model, error });
    throw error;
  }
}

/** Stage 2: summaries merged until one is left, each round's prompts within the budget. */
async function reduce(
  deps: Deps,
  run: NaturalRun,
  input: DistillInput,
  summaries: string[],
  signal: AbortSignal,
): Promise<{ text: string; calls: number; rounds: number }> {
  const room = promptBudgetBytes(run.settings) - promptBytes(reduceMessages(input, [], 999_999)) - SLACK_BYTES;
  let calls = 0;
  let rounds = 0;
  while (summaries.length > 1) {
    const groups = groupsOf(summaries, room);
    // Each summary was asked to be at most room / count: two always share a prompt; this guards against a loop.
    if (groups.length === summaries.length) throw new Failure("too_large");
    if (groups.length > callsLeft(run, input.reserveCalls ?? 0)) throw new Failure("budget");
    const maxBytes = groups.length === 1 ? input.targetBytes : clamp(Math.floor(room / groups.length) - 16, MIN_SUMMARY_BYTES, input.targetBytes);
    summaries = await Promise.all(groups.map((group) => ask(deps, run, reduceMessages(input, group, maxBytes), maxBytes, signal)));
    calls += groups.length;
    rounds += 1;
  }
  return { text: summaries[0] ?? "", calls, rounds };
}

/** Stage 1 (every chunk summarised, in parallel) then stage 2, with their events; throws what stopped it. */
async function mapReduce(deps: Deps, run: NaturalRun, input: DistillInput, original: number): Promise<string> {
  const { clock, maxMapCalls } = deps;
  const started = clock.now();
  const budget = promptBudgetBytes(run.settings);
  const overhead = promptBytes(mapMessages(input, { text: "", label: "x".repeat(120), context: "" }, { index: 98, count: 99, maxBytes: 999_999 }));
  const { strategy, chunks, context, json } = chunkResult(input.value, budget - overhead - CONTEXT_BYTES - SLACK_BYTES);
  const count = chunks.length;
  if (count > maxMapCalls) throw new Failure("too_large");
  if (count + (count > 1 ? 1 : 0) > callsLeft(run, input.reserveCalls ?? 0)) throw new Failure("budget");
  const reduceRoom = budget - promptBytes(reduceMessages(input, [], 999_999)) - SLACK_BYTES;
  const maxBytes = count === 1 ? input.targetBytes : clamp(Math.floor(reduceRoom / count) - 32, MIN_SUMMARY_BYTES, input.targetBytes);
  // One call failing stops the others: the result is trimmed instead, their answers would be wasted.
  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, run.signal]);
  const summaries = await Promise.all(
    chunks.map((chunk, index) => ask(deps, run, mapMessages(input, { ...chunk, context, json }, { index, count, maxBytes }), maxBytes, signal)),
  ).catch((error: unknown) => {
    stop.abort(error);
    throw error;
  });
  const scope = { ...llmEventScope(), step_id: input.stepId };
  const mapped = clock.now();
  const summaryBytes = summaries.reduce((n, s) => n + byteLength(s), 0);
  requestEvent("result_distill.stage1_complete", {
    ...scope,
    chunks: count,
    chunk_strategy: strategy,
    summary_bytes: summaryBytes,
    duration_ms: mapped - started,
  });
  const reduced = await reduce(deps, run, input, summaries, signal);
  // Every answer was checked; this guards a result that gave no chunk at all.
  if (reduced.text === "") throw new Failure("incomplete", "empty");
  const distilled = byteLength(reduced.text);
  requestEvent("result_distill.stage2_complete", {
    ...scope,
    reduce_calls: reduced.calls,
    rounds: reduced.rounds,
    distilled_bytes: distilled,
    duration_ms: clock.now() - mapped,
  });
  requestEvent("result_distill.mapreduce_complete", {
    ...scope,
    chunk_strategy: strategy,
    original_bytes: original,
    distilled_bytes: distilled,
    chunks: count,
    llm_calls: count + reduced.calls,
    duration_ms: clock.now() - started,
  });
  return reduced.text;
}

export function createDistiller({
  provider,
  clock = systemClock,
  maxMapCalls = MAX_MAP_CALLS,
  cacheEntries = 256,
  cacheBytes = 8 * 1024 * 1024,
}: DistillerOptions): Distiller {
  const cache = createLru(cacheEntries, cacheBytes);
  const deps: Deps = { provider, clock, maxMapCalls };

  return {
    async distil(input) {
      const original = byteLength(JSON.stringify(input.value) ?? "null");
      const scope = { ...llmEventScope(), step_id: input.stepId };
      const run = currentNaturalRun();
      const fail = (reason: DistillFailure, code?: string, finish?: string): DistillOutcome => {
        const detail = { ...(code === undefined ? {} : { error_code: code }), ...(finish === undefined ? {} : { finish_reason: finish }) };
        requestEvent("result_distill.llm_failed", { ...scope, reason, original_bytes: original, ...detail });
        return { ok: false, reason, original_bytes: original };
      };
      if (run === undefined) return fail("no_run");
      // The request is part of the key: a summary keeps what its request needs.
      const key = createHash("sha256")
        .update(JSON.stringify([input.request, input.targetBytes, parametersHash(input.value)]))
        .digest("hex");
      const hit = cache.get(key);
      if (hit !== undefined) {
        requestEvent("result_distill.cache_hit", { ...scope, original_bytes: original, distilled_bytes: byteLength(hit) });
        return { ok: true, text: hit, original_bytes: original, distilled_bytes: byteLength(hit), cached: true };
      }
      requestEvent("result_distill.mapreduce_route", { ...scope, reason: input.reason, original_bytes: original, budget_bytes: input.targetBytes });
      try {
        const text = await mapReduce(deps, run, input, original);
        cache.set(key, text);
        return { ok: true, text, original_bytes: original, distilled_bytes: byteLength(text), cached: false };
      } catch (error) {
        if (error instanceof Failure) return fail(error.reason, undefined, error.finish);
        const { code } = toManifoldError(error);
        const reason: DistillFailure =
          run.signal.aborted || code === "ABORTED" || code === "TIMEOUT" ? "aborted" : code === "BUDGET_EXCEEDED" ? "budget" : "llm_error";
        return fail(reason, code);
      }
    },
  };
}
