/**
 * After a chat turn: one structured model call proposes facts about the user, reconciliation decides
 * what each does to what is stored, the store takes the writes, and when something was written a
 * text call refreshes the profile summary (kept with the facts revision it was made from). Runs in
 * the extraction queue, never in the turn's stream, under a root span of its own
 * (`pipeline.hook.async.knowledge-extraction`, linked to the turn's trace). Both calls go to the
 * turn's LLM debug record. Only counts reach spans and logs: never a key's value or the summary.
 */
import { ownerKey } from "../../context/index.js";
import { isManifoldError } from "../../errors/index.js";
import type { FeatureEventMap } from "../../feature/index.js";
import type { LlmCompletion, LlmProvider, LlmRequest } from "../../llm/index.js";
import type { RecordCall } from "../../orchestration/served.js";
import { getTelemetry, type Logger, type SpanTrace } from "../../telemetry/index.js";
import { EXTRACTION_JSON_NAME, EXTRACTION_SCHEMA, extractionMessages, parseExtraction, summaryMessages } from "./prompts.js";
import { reconcile } from "./reconcile.js";
import { looksSecret } from "./secrets.js";
import { MAX_SUMMARY_CHARS } from "./store/bounds.js";
import type { FactChange, FactStore } from "./store/types.js";

export type ChatTurn = FeatureEventMap["chat.turn_completed"];

export const EXTRACTION_SPAN = "pipeline.hook.async.knowledge-extraction";
export const USER_MEMORY_EVENT = {
  EXTRACTION_REQUEST: "user_memory.extraction.llm_request",
  EXTRACTION_COMPLETE: "user_memory.extraction.complete",
  SUMMARY_REQUEST: "user_memory.summary.llm_request",
  SUMMARY_STORED: "user_memory.summary.stored",
} as const;

/** What the user deleted in this process while one extraction ran (`all`: everything). */
export interface Forgotten {
  readonly keys: ReadonlySet<string>;
  readonly all: boolean;
}

export interface ExtractionDeps {
  readonly facts: FactStore;
  readonly llm: LlmProvider;
  /** The LLM debug recorder of a request; undefined when records are off. */
  readonly recorder: (requestId: string) => RecordCall | undefined;
  readonly now: () => number;
  readonly maxFacts: number;
  /** Told what was written, after the writes (recall's cache and the vector side follow). */
  readonly changed: (user: string, changes: readonly FactChange[], signal: AbortSignal) => Promise<void>;
  readonly log: Logger;
  /** Deletes made here while this extraction runs. @defaultValue none */
  readonly forgotten?: Forgotten;
}

export interface ExtractionOutcome {
  readonly candidates: number;
  /** Changes written: puts and deletes. */
  readonly changes: readonly FactChange[];
  readonly summarised: boolean;
}

/** One model call, recorded in the request's LLM debug record whether it succeeds or fails. */
async function ask(deps: ExtractionDeps, requestId: string, request: LlmRequest): Promise<LlmCompletion> {
  const record = deps.recorder(requestId);
  const started = Date.now();
  const call = { type: request.phase, messages: request.messages, attempt: 1, started, model: deps.llm.model };
  try {
    const completion = await deps.llm.complete(request);
    record?.({ ...call, completion });
    return completion;
  } catch (error) {
    record?.({ ...call, error });
    throw error;
  }
}

/**
 * Writes the changes one by one; a put refused for the user's limit (a race with another writer) is
 * left out, and so is one of a key the user deleted meanwhile (a delete between two writes here).
 */
async function apply(facts: FactStore, user: string, changes: readonly FactChange[], forgotten: (key: string) => boolean): Promise<FactChange[]> {
  const written: FactChange[] = [];
  for (const change of changes) {
    try {
      if (change.action === "deleted") {
        if (await facts.delete(user, change.key)) written.push(change);
      } else if (change.action !== "dropped" && !forgotten(change.fact.key)) {
        await facts.put(user, change.fact);
        written.push(change);
      }
    } catch (error) {
      if (!isManifoldError(error) || error.code !== "LIMIT_EXCEEDED") throw error;
    }
  }
  return written;
}

/** The profile summary, made from the facts as they are now and stored with the revision read before them (a write in between leaves it stale, never wrongly current). */
async function summarise(deps: ExtractionDeps, user: string, requestId: string, span: SpanTrace | undefined, signal: AbortSignal): Promise<boolean> {
  const revision = await deps.facts.revision(user);
  const facts = await deps.facts.list(user);
  if (facts.length === 0) return false;
  span?.event(USER_MEMORY_EVENT.SUMMARY_REQUEST, { facts_count: facts.length });
  const completion = await ask(deps, requestId, {
    phase: "user_memory_summary",
    messages: summaryMessages(facts),
    temperature: 0,
    maxTokens: 300,
    maxOutputBytes: 4096,
    signal,
  });
  const text = [...completion.text.trim()].slice(0, MAX_SUMMARY_CHARS).join("");
  if (text === "") return false;
  // The facts passed the filter, but the model writes the summary: what it adds is filtered too.
  if (looksSecret("summary", text)) {
    deps.log.warn("user memory: the profile summary looks like it holds a secret; not kept", { request_id: requestId });
    return false;
  }
  await deps.facts.setSummary(user, { text, revision, updated_at: new Date(deps.now()).toISOString() });
  span?.event(USER_MEMORY_EVENT.SUMMARY_STORED, { profile_chars: text.length });
  return true;
}

async function extract(turn: ChatTurn, user: string, deps: ExtractionDeps, span: SpanTrace | undefined, signal: AbortSignal): Promise<ExtractionOutcome> {
  const known = await deps.facts.list(user);
  span?.event(USER_MEMORY_EVENT.EXTRACTION_REQUEST, { known_facts: known.length });
  const completion = await ask(deps, turn.request_id, {
    phase: "user_memory_extraction",
    messages: extractionMessages(turn, known),
    json: { name: EXTRACTION_JSON_NAME, schema: EXTRACTION_SCHEMA },
    temperature: 0,
    maxTokens: 1000,
    maxOutputBytes: 16_384,
    signal,
  });
  const candidates = parseExtraction(completion.text);
  if (candidates === undefined) deps.log.warn("user memory: the extraction answer is not a facts object; nothing kept", { request_id: turn.request_id });
  // Reconciled with the facts as they are now, not as the model was shown them: a fact the user
  // deleted while the model answered (here, or on another replica: known then, gone now) stays deleted.
  const current = candidates === undefined || candidates.length === 0 ? known : await deps.facts.list(user);
  const currentKeys = new Set(current.map((fact) => fact.key));
  const deletedHere = (key: string): boolean => deps.forgotten !== undefined && (deps.forgotten.all || deps.forgotten.keys.has(key));
  const knownKeys = new Set(known.map((fact) => fact.key));
  const planned = reconcile(candidates ?? [], current, {
    source: { session_id: turn.session_id, message_id: turn.user_message_id, request_id: turn.request_id },
    now: new Date(deps.now()).toISOString(),
    maxFacts: deps.maxFacts,
    forgotten: (key) => deletedHere(key) || (knownKeys.has(key) && !currentKeys.has(key)),
  });
  const changes = await apply(deps.facts, user, planned, deletedHere);
  span?.event(USER_MEMORY_EVENT.EXTRACTION_COMPLETE, { candidates: planned.length, stored: changes.length });
  // A fact deleted here right after it was written is not handed to the vector side again.
  const live = changes.filter((change) => change.action === "deleted" || change.action === "dropped" || !deletedHere(change.fact.key));
  if (live.length > 0) await deps.changed(user, live, signal);
  let summarised = false;
  if (changes.length > 0) {
    summarised = await summarise(deps, user, turn.request_id, span, signal).catch((error: unknown) => {
      if (!signal.aborted) deps.log.warn("user memory: the profile summary failed; the facts are kept", { request_id: turn.request_id, error });
      return false;
    });
  }
  return { candidates: planned.length, changes, summarised };
}

/**
 * Extracts and keeps what a turn says about its user; undefined for an anonymous caller (everyone at
 * once: nothing is learnt about nobody in particular). Rejects when the model or the store fails.
 */
export async function extractFromTurn(turn: ChatTurn, deps: ExtractionDeps, signal: AbortSignal): Promise<ExtractionOutcome | undefined> {
  if (turn.identity.via === "anonymous") return undefined;
  const user = ownerKey(turn.identity);
  const span = getTelemetry().startSpan(EXTRACTION_SPAN, {
    attributes: { request_id: turn.request_id, "pipeline.hook.failure_policy": "fail_open" },
    ...(turn.trace === undefined ? {} : { links: [turn.trace] }),
  });
  try {
    const work = () => extract(turn, user, deps, span, signal);
    const outcome = await (span === undefined ? work() : span.run(work));
    span?.setAttributes({ candidates: outcome.candidates, stored: outcome.changes.length });
    span?.end();
    return outcome;
  } catch (error) {
    span?.end(isManifoldError(error) ? error.code : "INTERNAL");
    throw error;
  }
}
