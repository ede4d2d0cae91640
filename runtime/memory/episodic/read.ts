/**
 * Episodic memory read back for planning: the context source `episodic` (data, never instructions;
 * not shown to the synthesis). Three sections within the source's byte budget: domain (the activity
 * digest), entity (earlier runs about the entities the request names, found through the domain's
 * vocabulary and the store's entity index, ranked lexically against the request) and knowledge
 * (what reflection learnt about those entities). A read is a handful of bounded store calls and
 * in-process lookups: no model, no scan of the domain.
 */
import { ownerKey, type Identity } from "../../context/index.js";
import { cutUtf8 } from "../../llm/index.js";
import type { ContextGathered, ContextRequest, ContextSource } from "../../orchestration/served.js";
import { getTelemetry, type SpanAttributes } from "../../telemetry/index.js";
import type { Clock } from "../../util/index.js";
import { createTextIndex } from "../retrieval/index.js";
import type { Emit } from "./model-call.js";
import type { ActivityDigest, Episode, EpisodeStore, KnowledgeFragment } from "./store/index.js";
import type { EpisodeWindow, WindowEntry } from "./window.js";

/** Entities of a request looked up at most. */
export const MAX_REQUEST_ENTITIES = 4;
/** Episodes read per entity, and shown in the entity section at most. */
const PER_ENTITY = 10;
const ENTITY_SHOWN = 5;
/** Episodes shown when the request names no known entity: the window's most relevant. */
const RELEVANT_SHOWN = 3;
const KNOWLEDGE_PER_ENTITY = 2;
/** Runs shown in the domain section before the first digest exists. */
const LATEST_SHOWN = 3;
/** Budget shares: the digest first, then the entity section; knowledge takes what is left. */
const DOMAIN_SHARE = 0.4;
const ENTITY_SHARE = 0.6;

export const SECTION_TITLE = "What this agent's earlier runs in its domain did (memory)";

type SectionKind = "domain" | "entity" | "knowledge";

interface Bounded {
  readonly text: string;
  readonly items: number;
  readonly kept: number;
}

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/** A heading and as many whole lines as fit `cap` (a first line alone too long is cut to fit). */
function bound(heading: string, lines: readonly string[], cap: number): Bounded {
  if (lines.length === 0) return { text: "", items: 0, kept: 0 };
  let text = heading;
  let kept = 0;
  for (const line of lines) {
    const next = `${text}\n${line}`;
    if (bytes(next) <= cap) {
      text = next;
      kept += 1;
      continue;
    }
    if (kept === 0 && bytes(`${text}\n`) + 16 < cap) {
      const room = cap - bytes(`${text}\n`) - 3;
      text = `${text}\n${cutUtf8(line, room).text}…`;
      kept = 1;
    }
    break;
  }
  return kept === 0 ? { text: "", items: lines.length, kept: 0 } : { text, items: lines.length, kept };
}

const day = (iso: string): string => iso.slice(0, 10);

interface Found {
  readonly digest: ActivityDigest | undefined;
  /** Without a digest yet: the newest runs, shown as they are in the domain section. */
  readonly latest: readonly WindowEntry[];
  readonly entities: readonly string[];
  readonly episodes: readonly (Episode | WindowEntry)[];
  readonly knowledge: readonly KnowledgeFragment[];
}

/** The entity section's episodes: those about the request's entities, the most relevant to it first, then the newest. */
async function aboutEntities(store: EpisodeStore, entities: readonly string[], request: string, own: Own): Promise<Episode[]> {
  const lists = await Promise.all(entities.map((entity) => store.recent({ entity, limit: PER_ENTITY })));
  const byId = new Map<string, Episode>();
  for (const list of lists) for (const episode of list) if (own(episode)) byId.set(episode.id, episode);
  const newestFirst = [...byId.values()].sort((a, b) => (a.id < b.id ? 1 : -1));
  const index = createTextIndex({ maxTokensPerDoc: 128 });
  for (const episode of newestFirst) index.upsert({ id: episode.id, text: episode.summary });
  const ranked = index.search(request, ENTITY_SHOWN).map(({ id }) => byId.get(id)!);
  const rest = newestFirst.filter((e) => !ranked.includes(e));
  return [...ranked, ...rest].slice(0, ENTITY_SHOWN);
}

/**
 * Whether a run is the caller's: runs are shown only to whoever asked them (anonymous runs to anonymous
 * callers), since their summaries can say what a user told the agent. The digest and knowledge are
 * the domain's, written by prompts that leave out who asked and what they said about themselves.
 */
type Own = (episode: { readonly user?: string | undefined }) => boolean;

function ownedBy(identity: Identity): Own {
  const caller = identity.via === "anonymous" ? undefined : ownerKey(identity);
  return (episode) => episode.user === caller;
}

async function find(store: EpisodeStore, window: EpisodeWindow, request: string, own: Own): Promise<Found> {
  const entities = window.entitiesIn(request, MAX_REQUEST_ENTITIES);
  const [digest, episodes, knowledge] = await Promise.all([
    store.digest(),
    entities.length === 0
      ? window
          .search(request, RELEVANT_SHOWN * 8)
          .filter(own)
          .slice(0, RELEVANT_SHOWN)
      : aboutEntities(store, entities, request, own),
    Promise.all(entities.map((entity) => store.knowledge({ entity, limit: KNOWLEDGE_PER_ENTITY }))).then((lists) => lists.flat()),
  ]);
  const latest =
    digest === undefined
      ? window
          .latest(LATEST_SHOWN * 8)
          .filter((e) => own(e) && !episodes.some((shown) => shown.id === e.id))
          .slice(0, LATEST_SHOWN)
      : [];
  return { digest, latest, entities, episodes, knowledge };
}

/** The three sections within the budget, each reported; the view's outcome. */
function render(found: Found, budget: number, emit: Emit, attributes: SpanAttributes): { text: string; outcome: string } {
  const parts: string[] = [];
  let used = 0;
  let partial = false;
  let available = 0;
  const section = (kind: SectionKind, heading: string, lines: readonly string[], share: number): void => {
    const cap = Math.floor((budget - used) * share);
    const shown = bound(heading, lines, cap);
    available += lines.length;
    if (shown.kept < shown.items) partial = true;
    if (lines.length > 0)
      emit("memory.enrichment.section_bounded", {
        ...attributes,
        section_kind: kind,
        items: shown.items,
        items_kept: shown.kept,
        bytes: bytes(shown.text),
        cap_bytes: cap,
      });
    if (shown.text === "") return;
    parts.push(shown.text);
    used += bytes(shown.text) + 2;
  };
  const line = (e: Episode | WindowEntry) => `- ${day(e.created_at)}: ${e.summary}`;
  const domain = found.digest === undefined ? found.latest.map(line) : found.digest.text === "" ? [] : [found.digest.text];
  section("domain", found.digest === undefined ? "Latest runs in this domain:" : "Domain activity so far:", domain, DOMAIN_SHARE);
  const about = found.entities.length === 0 ? "Earlier runs that may be relevant:" : `Earlier runs about ${found.entities.join(", ")}:`;
  section(
    "entity",
    about,
    found.episodes.map((e) => `- ${day(e.created_at)}: ${e.summary}`),
    ENTITY_SHARE,
  );
  section(
    "knowledge",
    "Learnt from earlier runs:",
    found.knowledge.map((k) => `- ${k.entity}: ${k.text}`),
    1,
  );
  const text = parts.join("\n\n");
  const outcome = available === 0 ? "empty" : text === "" ? "budget_too_small" : partial ? "partial" : "complete";
  return { text, outcome };
}

export interface EpisodicSourceOptions {
  readonly store: EpisodeStore;
  readonly window: EpisodeWindow;
  readonly domain: string;
  readonly budgetBytes: number;
  readonly retentionMs: number;
  readonly clock: Clock;
  /** Keeps the request's LLM debug recorder for the run's recording after it settles. */
  readonly remember: (request: ContextRequest) => void;
}

export function createEpisodicSource({ store, window, domain, budgetBytes, retentionMs, clock, remember }: EpisodicSourceOptions): ContextSource {
  return {
    name: "episodic",
    budgetBytes,
    async gather(request): Promise<ContextGathered | undefined> {
      remember(request);
      const emit: Emit = (name, attributes) => getTelemetry().event(name, attributes);
      const attributes = { request_id: request.requestId, domain };
      const started = clock.now();
      let found: Found;
      try {
        await window.sync(clock.now() - retentionMs);
        found = await find(store, window, request.request, ownedBy(request.identity));
      } catch (error) {
        emit("memory.episodic.read", { ...attributes, status: "read_failed", returned_events: 0, limit: ENTITY_SHOWN });
        throw error;
      }
      emit("memory.entity_extraction.completed", {
        ...attributes,
        hook: "enrichment",
        extractor_type: "domain_vocabulary",
        source: "request",
        entities_found: found.entities.length,
      });
      emit("memory.episodic.read", {
        ...attributes,
        status: "read_succeeded",
        returned_events: found.latest.length + found.episodes.length,
        limit: ENTITY_SHOWN,
      });
      const current = found.digest !== undefined && found.digest.through === window.newest();
      emit("activity.compaction.cache_decision", {
        ...attributes,
        cache_hit: current,
        path: found.digest === undefined ? "raw_fallback" : "cached",
        coverage: found.digest === undefined ? "unknown" : current ? "returned_window" : "limited_window",
        duration_ms: clock.now() - started,
      });
      const { text, outcome } = render(found, request.budgetBytes, emit, attributes);
      emit("memory.enrichment.view_bounded", { ...attributes, outcome, budget_bytes: request.budgetBytes });
      emit("memory.enrichment.injected", {
        ...attributes,
        entities_found: found.entities.length,
        context_chars: text.length,
        context_bytes: bytes(text),
        budget_bytes: request.budgetBytes,
        view_outcome: outcome,
      });
      const evidence = {
        domain,
        entities: found.entities,
        digest_through: found.digest?.through ?? null,
        episodes: [...found.latest, ...found.episodes].map((e) => e.id),
        fragments: found.knowledge.map((k) => k.id),
      };
      if (text === "") return { evidence };
      return { section: { source: "episodic", title: SECTION_TITLE, text, trust: "data", synthesis: false }, evidence };
    },
  };
}
