/**
 * The candidates of a request: the active version of every skill in the agent's namespaces, read
 * from the registry's listing and pinned there (the version listed is the one activated and whose
 * resources are read, even if another is published or pinned meanwhile). The listing and what is
 * derived from it (the compact index lines, the lexical index) are kept for a short time, so a
 * request does not list the registry when nothing could have changed; concurrent requests share
 * one listing.
 */
import { createTextIndex, stem, tokenize, type TextIndex } from "../memory/retrieval/index.js";
import { ATTR, SKILLS_SPAN } from "../telemetry/index.js";
import type { Clock } from "../util/index.js";
import { inSpan } from "./context-telemetry.js";
import type { SkillStore, SkillSummary } from "./store/types.js";

/** Candidates kept at most (the registry bounds each namespace; this bounds an agent drawing on many). */
export const MAX_CANDIDATES = 2000;
/** Characters of a description shown on its index line. */
export const INDEX_DESCRIPTION_CHARS = 200;

/** One skill a request may activate, at the version pinned for it. */
export interface SkillCandidate {
  /** `<namespace>/<name>`: how the selection names it. */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  /** `<namespace>/<name>@<version> — "<description>"`, one line whatever the description holds. */
  readonly line: string;
}

export interface CandidateIndex {
  readonly candidates: readonly SkillCandidate[];
  readonly byKey: ReadonlyMap<string, SkillCandidate>;
  /**
   * Names and descriptions, for the lexical choice and for ranking the lines a long index shows; built
   * on first use (a model's choice over an index that fits its prompt needs none).
   */
  readonly text: TextIndex;
}

/**
 * Words every skill description and many requests use ("Use this skill when the user asks for
 * help…"): sharing one says nothing about whether a skill applies, so neither side is matched on them.
 */
const GENERIC: ReadonlySet<string> = new Set(
  (
    "use used uses using skill skills when whenever user users help helps helping ask asks asked request requests need needs " +
    "want wants please about any all also should must just like get make do doing done instruction instructions agent"
  )
    .split(" ")
    .map(stem),
);

/** The terms of a text that can tell skills apart, as text the lexical index reads the same way. */
export function meaningful(text: string): string {
  return tokenize(text, 512)
    .filter((term) => !GENERIC.has(term))
    .join(" ");
}

/**
 * A description's first line, without control or line-separator characters and at most
 * INDEX_DESCRIPTION_CHARS, JSON-quoted: a published description is text, and must not open a line
 * of its own in the selection prompt (a fake skill, a fake rule).
 */
function quoted(description: string): string {
  const first = description
    .split("\n", 1)[0]!
    .replace(/[\p{Cc}\u2028\u2029]+/gu, " ")
    .trim();
  return JSON.stringify(first.length <= INDEX_DESCRIPTION_CHARS ? first : `${first.slice(0, INDEX_DESCRIPTION_CHARS - 1)}…`);
}

export function candidateIndex(summaries: readonly SkillSummary[]): CandidateIndex {
  const candidates: SkillCandidate[] = [];
  const byKey = new Map<string, SkillCandidate>();
  for (const summary of summaries) {
    // A skill whose versions are all retired has none to use.
    if (summary.active === undefined) continue;
    const key = `${summary.namespace}/${summary.name}`;
    if (byKey.has(key) || candidates.length >= MAX_CANDIDATES) continue;
    const { namespace, name, description } = summary;
    const version = summary.active;
    const candidate: SkillCandidate = { key, namespace, name, version, description, line: `${key}@${version} — ${quoted(description)}` };
    candidates.push(candidate);
    byKey.set(key, candidate);
  }
  let text: TextIndex | undefined;
  return {
    candidates,
    byKey,
    get text() {
      if (text === undefined) {
        text = createTextIndex({ maxTokensPerDoc: 128, maxTextChars: 2048 });
        for (const { key, name, description } of candidates) text.upsert({ id: key, text: meaningful(`${name.replaceAll("-", " ")} ${description}`) });
      }
      return text;
    },
  };
}

export interface CandidateReader {
  /** The index of the candidates now (or as listed less than the TTL ago); `cached` says which. */
  read(): Promise<{ readonly index: CandidateIndex; readonly cached: boolean }>;
}

export function createCandidateReader({
  store,
  namespaces,
  ttlMs,
  clock,
}: {
  readonly store: SkillStore;
  readonly namespaces: readonly string[];
  readonly ttlMs: number;
  readonly clock: Clock;
}): CandidateReader {
  let kept: { readonly index: CandidateIndex; readonly at: number } | undefined;
  let listing: Promise<CandidateIndex> | undefined;
  const list = async (): Promise<CandidateIndex> => {
    const at = clock.now();
    const lists = await Promise.all(
      namespaces.map((namespace) =>
        inSpan(SKILLS_SPAN.REGISTRY_LIST, { [ATTR.SKILL_NAMESPACE]: namespace }, async (span) => {
          const summaries = await store.list(namespace);
          span?.setAttributes({ "skills.listed": summaries.length });
          return summaries;
        }),
      ),
    );
    const index = candidateIndex(lists.flat());
    if (ttlMs > 0) kept = { index, at };
    return index;
  };
  return {
    async read() {
      if (kept !== undefined && clock.now() - kept.at < ttlMs) return { index: kept.index, cached: true };
      // One listing at a time: requests arriving while it runs wait for it instead of listing too.
      listing ??= list().finally(() => (listing = undefined));
      return { index: await listing, cached: false };
    },
  };
}
