/**
 * bench:memory's harness, shared by the bench (run.ts) and its CI test (test/bench/memory.test.ts):
 * one user's facts and one domain's episodes written to a store (embedded or Redis), the two memory
 * context sources over them as the memory feature builds them (user memory's recall with the
 * retriever, episodic memory's read), and the same natural request run twice: by an orchestrator with
 * those sources and by one without (the named alternative: no memory). The model is the runtime's
 * provider (the `openai` client) against bench:natural-scale's instant scripted endpoint, which keeps
 * each call's prompt bytes; the two tools the plan calls are served on loopback.
 */
import { withIdentity } from "../../runtime/context/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { createEpisodeStore, createEpisodicMemory, type EpisodeStore, type EpisodicMemory } from "../../runtime/memory/episodic/index.js";
import { createRetriever, type Retriever } from "../../runtime/memory/retrieval/index.js";
import { createRecallSource, DEFAULT_RECALL_BUDGET_BYTES } from "../../runtime/memory/user/index.js";
import { createFactStore, type FactStore } from "../../runtime/memory/user/store/index.js";
import { contextPrompt, DEFAULT_SECTION_BYTES, type ContextGathered, type ContextSource } from "../../runtime/orchestration/index.js";
import type { FeatureServices } from "../../runtime/feature/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import type { Logger } from "../../runtime/telemetry/index.js";
import { REQUEST } from "../orchestration/natural-scale-catalog.js";
import { promptBytesByKind, registerNetwork, startScaleRun, type ScaleRun } from "../orchestration/natural-scale-run.js";
import type { ScaleTools } from "../orchestration/natural-scale-tools.js";
import { benchDigest, benchEpisodes, benchFacts, benchKnowledge, DOMAIN, USER } from "./fixtures.js";

const quiet = (): void => undefined;
const SILENT: Logger = Object.assign(quiet, { debug: quiet, info: quiet, warn: quiet, error: quiet });
/** Writes in flight at once while filling a store. */
const BATCH = 500;

export interface MemoryBenchOptions {
  /** Where facts and episodes live: `createStore({ env: {} })` (embedded) or a Redis store. */
  readonly store: Store;
  readonly facts: number;
  readonly episodes: number;
  /** The memory variables (MANIFOLD_USER_MEMORY_*, MANIFOLD_EPISODIC_*, MANIFOLD_MEMORY_VECTORS). @defaultValue {} */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface RequestFigures {
  /** Prompt bytes by call kind (`routing_plan`, `synthesis`). */
  readonly bytes: Readonly<Record<string, number>>;
  /** The request's own time: outside the model calls and the tool calls. */
  readonly ownMs: number;
}

export interface MemoryBench {
  readonly sources: readonly ContextSource[];
  /** What `source` adds for the bench's request, timed (one gather, outside any request). */
  gather(source: ContextSource): Promise<{ readonly gathered: ContextGathered | undefined; readonly ms: number }>;
  /** The most bytes the sources may add to a prompt: each one's budget and the framing around its section. */
  budgetBytes(): Promise<number>;
  /** Rewrites one of the user's facts (as an extraction would): the next recall reads the user's facts again. */
  changeFact(round: number): Promise<void>;
  /** The request by the orchestrator with memory, or by the one without. */
  request(memory: boolean): Promise<RequestFigures>;
  close(): Promise<void>;
}

async function inBatches<T>(items: readonly T[], write: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) await Promise.all(items.slice(i, i + BATCH).map(write));
}

/** Fills the stores: the user's facts and a current summary, the domain's episodes, its digest and one knowledge fragment. */
async function fill(facts: FactStore, episodes: EpisodeStore, sizes: { facts: number; episodes: number }, now: number): Promise<void> {
  await inBatches(benchFacts(sizes.facts, now), (fact) => facts.put(USER.subject, fact));
  const revision = await facts.revision(USER.subject);
  await facts.setSummary(USER.subject, {
    text: "Lives in Lyon, travels often for work, prefers trains and Celsius.",
    revision,
    updated_at: new Date(now).toISOString(),
  });
  const made = benchEpisodes(sizes.episodes, now);
  await inBatches(made, (episode) => episodes.append(episode));
  if (made.length === 0) return;
  await episodes.setDigest(benchDigest(made.at(-1)!, made.length), undefined);
  const claimed = await episodes.claimForReflection(`reflect-${"a".repeat(16)}`, new Date(now).toISOString(), 2);
  await episodes.completeReflection(
    `reflect-${"a".repeat(16)}`,
    claimed.map((e) => e.id),
    [
      benchKnowledge(
        claimed.map((e) => e.id),
        now,
      ),
    ],
  );
}

/** What the memory feature hands episodic memory, for an agent with `memory: true` in the bench's domain. */
function servicesOf(env: Readonly<Record<string, string | undefined>>): Pick<FeatureServices, "spec" | "agent" | "env" | "llm" | "log"> {
  return {
    spec: { name: "bench-agent" },
    agent: { memory: { user: true, episodic: true, domain: DOMAIN } },
    env,
    llm: undefined,
    log: () => SILENT,
  } as unknown as Pick<FeatureServices, "spec" | "agent" | "env" | "llm" | "log">;
}

export async function startMemoryBench(
  { store, facts: factCount, episodes: episodeCount, env = {} }: MemoryBenchOptions,
  tools: ScaleTools,
): Promise<MemoryBench> {
  const now = Date.now();
  const facts = createFactStore({ store, env, maxFacts: Math.max(factCount, 1) });
  const episodes = createEpisodeStore({ domain: DOMAIN, store, env, maxEpisodes: Math.max(episodeCount, 1), retentionMs: 30 * 86_400_000 });
  await fill(facts, episodes, { facts: factCount, episodes: episodeCount }, now);
  const retriever: Retriever = createRetriever({ env, log: SILENT });
  const user = createRecallSource({ facts, retriever, budgetBytes: DEFAULT_RECALL_BUDGET_BYTES });
  const episodic: EpisodicMemory = createEpisodicMemory({ services: servicesOf(env), store: episodes, env });
  const sources = [user, episodic.source];

  const registry = createRegistry({ store: createStore({ env: {}, log: () => undefined }), env: {} });
  await registerNetwork(registry, 10, tools.ports);
  const runs: Record<"with" | "without", ScaleRun> = { with: await startScaleRun(registry), without: await startScaleRun(registry) };
  runs.with.orchestrator.useContext(...sources);

  const gather: MemoryBench["gather"] = async (source) => {
    const request = {
      requestId: `bench-${Math.random().toString(16).slice(2)}`,
      request: REQUEST,
      identity: USER,
      conversationId: undefined,
      budgetBytes: source.budgetBytes ?? DEFAULT_SECTION_BYTES,
      signal: new AbortController().signal,
      llm: undefined,
      record: undefined,
    };
    const started = performance.now();
    const gathered = await source.gather(request);
    return { gathered, ms: performance.now() - started };
  };

  return {
    sources,
    gather,
    async changeFact(round) {
      const at = new Date(now + round).toISOString();
      await facts.put(USER.subject, {
        key: "temperature_unit",
        value: `Celsius, never Fahrenheit (checked ${round})`,
        source: {},
        created_at: at,
        updated_at: at,
      });
    },
    async budgetBytes() {
      let total = 0;
      for (const source of sources) {
        const section = (await gather(source)).gathered?.section;
        // The framing: the section's heading and its data delimiters, as the planning prompt shows them.
        const framing = section === undefined ? 0 : Buffer.byteLength(contextPrompt([{ ...section, text: "" }]));
        total += (source.budgetBytes ?? DEFAULT_SECTION_BYTES) + framing;
      }
      return total;
    },
    async request(memory) {
      const figures = await withIdentity(USER, () => runs[memory ? "with" : "without"].request());
      return { bytes: promptBytesByKind(figures.calls), ownMs: figures.ownMs };
    },
    async close() {
      await Promise.all([runs.with.close(), runs.without.close()]);
      await episodic.stop();
      await retriever.close();
      await facts.clear(USER.subject);
      // Bounded: each sweep deletes up to 10,000, and the domain holds at most `episodeCount` (plus a fragment).
      for (let left = episodeCount + 1; left > 0; left -= 10_000) if ((await episodes.sweep(new Date(now + 86_400_000).toISOString(), 10_000)) === 0) break;
      await facts.close();
      await episodes.close();
    },
  };
}
