/**
 * Recall: the planning-context source `user_memory`. For a proven caller it gives the profile summary
 * (when it was made from the current facts) and the facts that matter to the request, within its byte
 * budget, as data (quoted, never obeyed) that the synthesis sees too. The facts most relevant to the
 * request are ranked by the retriever (lexical, fused with vectors when they are on); the few most
 * recently updated are always included. A user's facts are read once per revision and held (bounded),
 * so a user with 10,000 facts costs two small reads per request, not a listing. An anonymous caller
 * gets nothing. The execution record keeps counts only, never a value.
 */
import { ownerKey } from "../../context/index.js";
import type { ContextGathered, ContextRequest, ContextSource } from "../../orchestration/served.js";
import { cutUtf8 } from "../../llm/index.js";
import { getTelemetry } from "../../telemetry/index.js";
import type { RetrievalDoc, Retriever } from "../retrieval/index.js";
import { DEFAULT_RECALL_BUDGET_BYTES } from "./settings.js";
import type { Fact, FactStore, FactSummary } from "./store/types.js";

export { DEFAULT_RECALL_BUDGET_BYTES } from "./settings.js";

export const RECALL_SPAN = "user_memory.recall.identity";
export const INJECTED_EVENT = "user_memory.enrichment.injected";
/** The most recently updated facts shown whatever the request. */
const ALWAYS_RECENT = 3;
/** Facts ranked for a request at most (the budget usually stops earlier). */
const MAX_RANKED = 20;
const PROFILE = "Profile: ";
const FACTS_HEADING = "Facts (key: value):";

/** A user's facts as recall holds them for one revision. */
interface Held {
  readonly revision: number;
  readonly docs: readonly RetrievalDoc[];
  readonly byKey: ReadonlyMap<string, Fact>;
  readonly recent: readonly Fact[];
}

export interface RecallOptions {
  readonly facts: FactStore;
  readonly retriever: Retriever;
  /** @defaultValue DEFAULT_RECALL_BUDGET_BYTES */
  readonly budgetBytes?: number;
  /** Facts held across users at most; the least recently recalled users go first. @defaultValue 200,000 */
  readonly maxHeldFacts?: number;
}

export interface RecallSource extends ContextSource {
  /** Drops what is held of a user (their facts were deleted): the next recall reads them again. */
  forget(user: string): void;
}

/** The retriever's scope of a user's facts. */
export const factScope = (user: string): string => `user_facts:${user}`;

/** A fact as its retrieval document: its key's words and its value. */
export const factDoc = (fact: Fact): RetrievalDoc => ({ id: fact.key, text: `${fact.key.replaceAll("_", " ")} ${fact.value}` });

function holdFacts(revision: number, facts: readonly Fact[]): Held {
  const recent = [...facts].sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0)).slice(0, ALWAYS_RECENT);
  return { revision, docs: facts.map(factDoc), byKey: new Map(facts.map((f) => [f.key, f])), recent };
}

/** The section's text: the profile (at most half the budget), then one line per fact while they fit. */
function sectionText(summary: FactSummary | undefined, facts: readonly Fact[], budgetBytes: number): { text: string; count: number; profileChars: number } {
  const profile = summary === undefined ? "" : cutUtf8(summary.text, Math.max(0, Math.floor(budgetBytes / 2) - PROFILE.length)).text;
  const head = profile === "" ? [] : [`${PROFILE}${profile}`];
  const render = (lines: readonly string[]): string => [...head, ...(lines.length === 0 ? [] : [FACTS_HEADING, ...lines])].join("\n");
  const lines: string[] = [];
  for (const fact of facts) {
    const line = `- ${fact.key}: ${fact.value}`;
    if (Buffer.byteLength(render([...lines, line])) > budgetBytes) break;
    lines.push(line);
  }
  return { text: render(lines), count: lines.length, profileChars: profile.length };
}

export function createRecallSource({ facts, retriever, budgetBytes = DEFAULT_RECALL_BUDGET_BYTES, maxHeldFacts = 200_000 }: RecallOptions): RecallSource {
  // Insertion order is recall order: a recall moves its user to the end, so the first is the least recently recalled.
  const held = new Map<string, Held>();
  let heldFacts = 0;
  const forget = (user: string): void => {
    const entry = held.get(user);
    if (entry === undefined) return;
    heldFacts -= entry.docs.length;
    held.delete(user);
  };
  const hold = (user: string, entry: Held): Held => {
    forget(user);
    held.set(user, entry);
    heldFacts += entry.docs.length;
    for (const [other] of held) {
      if (heldFacts <= maxHeldFacts) break;
      if (other !== user) forget(other);
    }
    return entry;
  };
  const factsOf = async (user: string, revision: number): Promise<Held> => {
    const entry = held.get(user);
    if (entry?.revision === revision) return hold(user, entry);
    return hold(user, holdFacts(revision, await facts.list(user)));
  };

  const recall = async (request: ContextRequest, user: string): Promise<ContextGathered> => {
    const [revision, summary] = await Promise.all([facts.revision(user), facts.summary(user)]);
    const entry = revision === 0 ? holdFacts(0, []) : await factsOf(user, revision);
    const ranked = await retriever.rank(factScope(user), request.request, entry.docs, MAX_RANKED, {
      signal: request.signal,
      ...(request.record === undefined ? {} : { record: request.record }),
      purpose: "user_memory_recall_query",
    });
    const shown = [...new Set([...entry.recent, ...ranked.map(({ id }) => entry.byKey.get(id))])].filter((f): f is Fact => f !== undefined);
    const current = summary !== undefined && summary.revision === revision ? summary : undefined;
    const { text, count, profileChars } = sectionText(current, shown, request.budgetBytes);
    const evidence = { facts_count: count, profile_chars: profileChars };
    getTelemetry().event(INJECTED_EVENT, evidence);
    if (text === "") return { evidence };
    return { section: { source: "user_memory", title: "What you know about this user", text, trust: "data", synthesis: true }, evidence };
  };

  return {
    name: "user_memory",
    budgetBytes,
    forget,
    async gather(request) {
      // Anonymous is everyone at once: nothing is recalled about nobody in particular.
      if (request.identity.via === "anonymous") return undefined;
      const user = ownerKey(request.identity);
      const span = getTelemetry().startSpan(RECALL_SPAN, { parent: "active" });
      try {
        const gathered = await (span === undefined ? recall(request, user) : span.run(() => recall(request, user)));
        span?.setAttributes(gathered.evidence as Record<string, number>);
        span?.end();
        return gathered;
      } catch (error) {
        span?.end("INTERNAL");
        throw error;
      }
    },
  };
}
