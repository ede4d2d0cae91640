/**
 * Recording a settled run as an episode (the settled listener): natural and workflow runs that
 * completed or failed (a paused run is recorded when it settles after its resume). The work happens
 * after the answer left, in a span `memory.record`, child of the request's span (which has usually
 * ended by the time the summary comes back), where the record's events go: entity extraction, the
 * summary's request, response and outcome, the events written, the summary's coverage, then the
 * compaction it triggers. Summaries and event texts never go into events or logs.
 */
import { ownerKey } from "../../context/index.js";
import type { LlmProvider } from "../../llm/index.js";
import type { RecordCall, RunSettled } from "../../orchestration/served.js";
import { getTelemetry, type Logger, type SpanAttributes } from "../../telemetry/index.js";
import type { Clock } from "../../util/index.js";
import type { Compactor } from "./compaction.js";
import { episodeEntities, episodeEvents } from "./events.js";
import type { Emit } from "./model-call.js";
import { type Episode, type EpisodeStore, MAX_SUMMARY_BYTES, newRecordId } from "./store/index.js";
import { mechanicalSummary, type Summary, summarise } from "./summarise.js";

/**
 * Summary calls one memory has in flight at most: runs settle as fast as clients send them, and each
 * call may wait out the summary timeout; past this a run is summarised mechanically (`fallback`), so
 * a slow model cannot make the process hold an unbounded number of calls.
 */
export const MAX_SUMMARIES_IN_FLIGHT = 8;

/** Counts the summary calls in flight. */
interface Slots {
  taken: number;
}

export interface RecorderOptions {
  readonly store: EpisodeStore;
  readonly llm: LlmProvider | undefined;
  readonly domain: string;
  readonly agentName: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly compactor: Compactor;
  readonly summaryTimeoutMs: number;
  /** The memory's own stop: a summary under way is abandoned (parent_cancelled). */
  readonly signal: AbortSignal;
  /** The LLM debug recorder the request's context gathering left for this request id. */
  readonly recorderOf: (requestId: string | undefined) => RecordCall | undefined;
}

/** Whether a settled run becomes an episode. */
export function recordable(run: RunSettled): boolean {
  return (run.mode === "natural" || run.mode === "workflow" || run.mode === "yaml") && run.status !== "interrupted";
}

/** The model's summary while a slot is free, else the mechanical one. */
async function boundedSummary(slots: Slots, call: () => Promise<Summary>, events: Parameters<typeof mechanicalSummary>[0]): Promise<Summary> {
  if (slots.taken >= MAX_SUMMARIES_IN_FLIGHT) return { summary: mechanicalSummary(events), outcome: "fallback", summarised: 0, shortened: false };
  slots.taken += 1;
  try {
    return await call();
  } finally {
    slots.taken -= 1;
  }
}

async function record(options: RecorderOptions, run: RunSettled, emit: Emit, slots: Slots): Promise<void> {
  const { store, llm, domain, agentName, clock, compactor, signal } = options;
  const attributes: SpanAttributes = { ...(run.requestId === undefined ? {} : { request_id: run.requestId }), domain };
  const recorder = options.recorderOf(run.requestId);
  const events = episodeEvents(run);
  const { entities, steps } = episodeEntities(run);
  for (const step of steps)
    emit("memory.entity_extraction.completed", {
      ...attributes,
      step_id: step.step_id,
      hook: "record",
      extractor_type: "parameters",
      source: "step_parameters",
      entities_found: step.found,
    });
  const summary = await boundedSummary(
    slots,
    () => summarise({ llm, events, signal, clock, timeoutMs: options.summaryTimeoutMs, emit, record: recorder, attributes }),
    events,
  );
  emit("memory.event_summarization.outcome", {
    ...attributes,
    outcome: summary.outcome,
    expected: 1,
    accepted: summary.outcome === "complete" || summary.outcome === "partial" ? 1 : 0,
    summaries_shortened: summary.shortened ? 1 : 0,
    summary_max_bytes: MAX_SUMMARY_BYTES,
  });
  const now = clock.now();
  const episode: Episode = {
    id: newRecordId(now),
    domain,
    ...(run.requestId === undefined ? {} : { request_id: run.requestId }),
    ...(run.identity.via === "anonymous" ? {} : { user: ownerKey(run.identity) }),
    status: run.status,
    entities,
    events,
    summary: summary.summary,
    summary_outcome: summary.outcome,
    created_at: new Date(now).toISOString(),
  };
  await store.append(episode);
  emit("memory.record.events_written", { ...attributes, agent_name: agentName, events_recorded: events.length });
  emit("memory.record.summary_coverage", {
    ...attributes,
    events_recorded: events.length,
    events_summarized: summary.summarised,
    coverage: events.length === 0 ? 1 : Math.round((summary.summarised / events.length) * 100) / 100,
  });
  if (!signal.aborted) await compactor.compact({ emit, record: recorder, signal, attributes });
}

/**
 * The settled listener: starts the record's span where the run's span is still the active one (the
 * listener is called in the request's context), then records inside it. Resolves when the episode
 * is stored and the digest compacted; a failure is logged, never thrown.
 */
export function createRecorder(options: RecorderOptions): (run: RunSettled) => Promise<void> {
  const slots: Slots = { taken: 0 };
  return async (run) => {
    if (!recordable(run)) return;
    const telemetry = getTelemetry();
    const span = telemetry.enabled
      ? telemetry.startSpan("memory.record", {
          parent: "active",
          attributes: { ...(run.requestId === undefined ? {} : { request_id: run.requestId }), domain: options.domain, agent_name: options.agentName },
        })
      : undefined;
    const emit: Emit = (name, attributes) => span?.event(name, attributes);
    try {
      await (span === undefined ? record(options, run, emit, slots) : span.run(() => record(options, run, emit, slots)));
      span?.end();
    } catch (error) {
      options.log.warn(`episodic memory: run ${run.requestId ?? "(no request id)"} was not recorded`, { error });
      span?.end("UNAVAILABLE");
    }
  };
}
