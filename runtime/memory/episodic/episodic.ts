/**
 * Episodic memory of one agent, assembled: the context source that reads the domain back for
 * planning, the settled listener that records each run (and compacts the digest after it), and the
 * background loop of reflection and sweep passes every `MANIFOLD_MEMORY_REFLECTION_INTERVAL` on an
 * injectable clock. The memory feature wires it: `useContext(source)`, `onSettled(onSettled)`,
 * `start()` with the agent, `stop()` before it closes.
 */
import type { FeatureServices } from "../../feature/index.js";
import type { ContextRequest, ContextSource, RecordCall, SettledListener } from "../../orchestration/served.js";
import type { Store } from "../../store/index.js";
import { systemClock, type Clock, type ClockTimer } from "../../util/index.js";
import { resolveMemorySettings } from "../settings.js";
import { createCompactor } from "./compaction.js";
import { createEpisodicSource } from "./read.js";
import { createRecorder } from "./record.js";
import { runReflectionPass, runSweepPass } from "./reflection.js";
import { resolveEpisodicSettings } from "./settings.js";
import { createEpisodeStore, type EpisodeStore } from "./store/index.js";
import { DEFAULT_SUMMARY_TIMEOUT_MS } from "./summarise.js";
import { createEpisodeWindow } from "./window.js";

/** Episodes younger than this wait for a later reflection pass (the runs about an entity gather first). */
export const DEFAULT_REFLECTION_AGE_MS = 3_600_000;
/** Requests whose debug recorder is kept between their context gathering and their settling. */
const MAX_PENDING_RECORDERS = 256;

export interface EpisodicMemoryOptions {
  /** The agent's feature services: its spec and name, its model (unbudgeted), env and logs. */
  readonly services: Pick<FeatureServices, "spec" | "agent" | "env" | "llm" | "log">;
  /** An episode store, or the store connection to make one on. @defaultValue `createEpisodeStore({ domain, env })` */
  readonly store?: EpisodeStore | Store;
  /** Reads time, stamps records and paces the passes. @defaultValue systemClock */
  readonly clock?: Clock;
  /** @defaultValue services.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A summary call abandoned after this long (`summary_timeout`). @defaultValue 30 s */
  readonly summaryTimeoutMs?: number;
  /** A reflection pass claims only episodes older than this. @defaultValue 1 h */
  readonly reflectionAgeMs?: number;
}

export interface EpisodicMemory {
  readonly source: ContextSource;
  readonly onSettled: SettledListener;
  /** Starts the reflection and sweep passes: the first after `firstPassInMs` (default the interval), then every interval. */
  start(firstPassInMs?: number): void;
  /** Stops the passes, abandons summaries under way (recorded with a mechanical one), waits for the records. */
  stop(): Promise<void>;
  readonly store: EpisodeStore;
  readonly domain: string;
}

const isEpisodeStore = (store: EpisodeStore | Store): store is EpisodeStore => typeof (store as EpisodeStore).append === "function";

/** Request id → its debug recorder, oldest dropped first past the bound (a run that never settled). */
function pendingRecorders(): { keep(request: ContextRequest): void; take(requestId: string | undefined): RecordCall | undefined } {
  const pending = new Map<string, RecordCall>();
  return {
    keep({ requestId, record }) {
      if (record === undefined) return;
      pending.set(requestId, record);
      if (pending.size > MAX_PENDING_RECORDERS) pending.delete(pending.keys().next().value!);
    },
    take(requestId) {
      if (requestId === undefined) return undefined;
      const record = pending.get(requestId);
      pending.delete(requestId);
      return record;
    },
  };
}

/** Runs `passes` every `intervalMs` on the clock, one after the other, until stopped; `stop` waits for one under way. */
function createPassLoop(clock: Clock, intervalMs: number, passes: () => Promise<void>): { start(firstInMs?: number): void; stop(): Promise<void> } {
  let running = false;
  let timer: ClockTimer | undefined;
  let current: Promise<void> = Promise.resolve();
  const schedule = (inMs = intervalMs): void => {
    if (!running) return;
    timer = clock.setTimeout(() => {
      current = passes().then(() => schedule());
    }, inMs);
  };
  return {
    start(firstInMs) {
      if (running) return;
      running = true;
      schedule(firstInMs);
    },
    async stop() {
      running = false;
      clock.clearTimeout(timer);
      await current;
    },
  };
}

export function createEpisodicMemory({
  services,
  store: given,
  clock = systemClock,
  env = services.env,
  summaryTimeoutMs = DEFAULT_SUMMARY_TIMEOUT_MS,
  reflectionAgeMs = DEFAULT_REFLECTION_AGE_MS,
}: EpisodicMemoryOptions): EpisodicMemory {
  const settings = resolveEpisodicSettings(env);
  const { domain } = resolveMemorySettings(services.agent.memory, services.spec.name, env);
  const owned = given === undefined || !isEpisodeStore(given);
  const store =
    given !== undefined && isEpisodeStore(given)
      ? given
      : createEpisodeStore({ domain, env, ...(given === undefined ? {} : { store: given }), clock: () => clock.now() });
  const log = services.log("memory");
  const stopping = new AbortController();
  const recorders = pendingRecorders();
  const compactor = createCompactor({ store, llm: services.llm, clock, log });
  const recordRun = createRecorder({
    store,
    llm: services.llm,
    domain,
    agentName: services.spec.name,
    clock,
    log,
    compactor,
    summaryTimeoutMs,
    signal: stopping.signal,
    recorderOf: recorders.take,
  });
  const records = new Set<Promise<void>>();
  const loop = createPassLoop(clock, settings.intervalMs, async () => {
    const pass = { store, llm: services.llm, domain, clock, log, signal: stopping.signal };
    await runReflectionPass({ ...pass, ageMs: reflectionAgeMs }).catch((error: unknown) => log.warn("a reflection pass failed", { error }));
    await runSweepPass({ store, clock, retentionMs: settings.retentionMs, intervalMs: settings.intervalMs }).catch((error: unknown) =>
      log.warn("a sweep pass failed", { error }),
    );
  });

  return {
    domain,
    store,
    source: createEpisodicSource({
      store,
      window: createEpisodeWindow(store),
      domain,
      budgetBytes: settings.budgetBytes,
      retentionMs: settings.retentionMs,
      clock,
      remember: recorders.keep,
    }),
    onSettled: (run) => {
      // A run settling while the agent stops is not recorded: the store may be closing.
      if (stopping.signal.aborted) return;
      const recorded = recordRun(run);
      records.add(recorded);
      void recorded.finally(() => records.delete(recorded));
      return recorded;
    },
    start(firstPassInMs) {
      if (!stopping.signal.aborted) loop.start(firstPassInMs);
    },
    async stop() {
      stopping.abort();
      await loop.stop();
      await Promise.allSettled([...records]);
      if (owned) await store.close();
    },
  };
}
