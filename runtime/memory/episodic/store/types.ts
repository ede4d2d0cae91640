/**
 * The episodic memory port, per agent domain (`MANIFOLD_AGENT_DOMAIN`, default the agent's name):
 * episodes (one per orchestration run: its events and their summary), the activity digest (an
 * incremental compaction of the episodes, cached with the episode it covers up to), and knowledge
 * fragments (what reflection passes learnt about an entity). `memory` and `redis` adapters; one
 * contract suite (test/contract/episodes.cases.ts) on memory, Redis and Redis Cluster. Everything is
 * bounded per domain and expires after the retention the sweep enforces.
 */

/** One thing that happened in a run: a capability call, the request, the answer. */
export interface EpisodeEvent {
  readonly kind: "request" | "step" | "answer";
  /** `component.capability` for a step. */
  readonly capability?: string;
  readonly status?: string;
  /** A bounded rendering (never a secret: what the run's tools returned, cut). */
  readonly text: string;
}

export interface Episode {
  /** Sortable: time-ordered within a domain (`<ms, 13 digits>-<hex>`). */
  readonly id: string;
  readonly domain: string;
  readonly request_id?: string;
  /** The owner key of who asked (`ownerKey`), when known. */
  readonly user?: string;
  readonly status: string;
  /** Entities the run was about (`city:lisbon`), lowercase, bounded. */
  readonly entities: readonly string[];
  readonly events: readonly EpisodeEvent[];
  /** The model's (or the fallback's) summary of the events. */
  readonly summary: string;
  readonly summary_outcome: "complete" | "partial" | "fallback" | "llm_unavailable" | "parent_cancelled" | "summary_timeout";
  /** ISO 8601. */
  readonly created_at: string;
  /** Set once a reflection pass has turned it into knowledge. */
  readonly reflected_at?: string;
}

/** The compacted activity of a domain up to (and including) episode `through`. */
export interface ActivityDigest {
  readonly text: string;
  readonly through: string;
  readonly episodes: number;
  readonly updated_at: string;
}

/** What reflection learnt about one entity from its episodes. */
export interface KnowledgeFragment {
  readonly id: string;
  readonly domain: string;
  readonly entity: string;
  readonly text: string;
  /** The episodes it was made from. */
  readonly episode_ids: readonly string[];
  /** The reflection pass (`reflect-<hex>`). */
  readonly pass_id: string;
  readonly created_at: string;
}

export interface EpisodeStore {
  readonly kind: "memory" | "redis";
  readonly domain: string;
  /** Adds an episode; the oldest go past the per-domain count. */
  append(episode: Episode): Promise<void>;
  /** Newest first, at most `limit` (bounded), optionally only those newer than episode `after` (exclusive: what a digest through `after` does not cover) or about `entity`. */
  recent(options: { readonly limit: number; readonly after?: string; readonly entity?: string }): Promise<Episode[]>;
  /** The ids `recent` would return (newest first, at most `limit`, only those newer than `after`), without reading the episodes. */
  recentIds(options: { readonly limit: number; readonly after?: string }): Promise<string[]>;
  get(id: string): Promise<Episode | undefined>;
  digest(): Promise<ActivityDigest | undefined>;
  /** Replaces the digest only if the stored one is still `expectedThrough` (undefined: none stored): one compare-and-set. */
  setDigest(digest: ActivityDigest, expectedThrough: string | undefined): Promise<boolean>;
  /**
   * Claims up to `limit` episodes for one pass, oldest first: those another pass claimed and did not
   * complete within its lease (it died or stalled), then unreflected ones older than `before` (ISO).
   * The claim holds for `leaseMs` (default DEFAULT_CLAIM_LEASE_MS) on the store's clock. Atomic: while
   * its lease holds, an episode is claimed by exactly one pass across replicas, and returned to nobody else.
   */
  claimForReflection(passId: string, before: string, limit: number, leaseMs?: number): Promise<Episode[]>;
  /**
   * In one step: marks reflected those of `episodeIds` this pass still holds the claim of (another
   * pass may have taken over an expired one), and stores those fragments all of whose episodes are
   * among them, so an episode taken over is never reflected into knowledge twice.
   */
  completeReflection(passId: string, episodeIds: readonly string[], fragments: readonly KnowledgeFragment[]): Promise<void>;
  knowledge(options: { readonly entity?: string; readonly limit: number }): Promise<KnowledgeFragment[]>;
  /** Deletes episodes and fragments created before `before` (ISO); the count deleted. */
  sweep(before: string, limit: number): Promise<number>;
  close(): Promise<void>;
}
