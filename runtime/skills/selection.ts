/**
 * Which candidates a request activates. Up to the threshold the choice is lexical: the skills whose
 * name or description shares a meaningful term with the request, best first. Past it, one structured
 * model call (`skill_selection`, as tiered selection does for capabilities) over the compact index,
 * charged to the request's budget and recorded in its LLM debug record; a name not in the index is
 * corrected when it is a near miss, else dropped. An answer that is not a selection falls back to the
 * lexical choice; an answer naming none activates none.
 */
import type { LlmCompletion, LlmProvider } from "../llm/index.js";
import { closest } from "../manifest/dataflow/index.js";
import type { RecordCall } from "../orchestration/served.js";
import { meaningful, type CandidateIndex, type SkillCandidate } from "./context-candidates.js";
import { parseSkillSelection, SKILL_SELECTION_SCHEMA, skillSelectionMessages } from "./selection-prompts.js";

/** Most bytes of index lines one selection prompt shows; past it, the lines most relevant to the request. */
export const SELECTION_INDEX_BYTES = 16 * 1024;
const SELECTION_MAX_TOKENS = 512;
const SELECTION_MAX_BYTES = 8 * 1024;
/** Names of one answer looked at (each unknown one costs a did-you-mean over the keys). */
const MAX_NAMES_READ = 16;
/** Unknown names of one answer given a did-you-mean. */
const MAX_GUESSES = 3;

export interface SkillChoice {
  readonly chosen: readonly SkillCandidate[];
  /** `lexical` (at most the threshold, no model, or an answer that was not a selection) or `model`. */
  readonly via: "lexical" | "model";
  /** Names the model gave that are not candidates, and what each became (undefined: dropped). */
  readonly corrections: readonly { readonly given: string; readonly corrected?: string }[];
}

export interface ChoiceRequest {
  readonly index: CandidateIndex;
  readonly request: string;
  readonly threshold: number;
  readonly maxActive: number;
  readonly llm: LlmProvider | undefined;
  readonly record: RecordCall | undefined;
  readonly signal: AbortSignal;
}

export function lexicalChoice(index: CandidateIndex, request: string, limit: number): SkillCandidate[] {
  return index.text.search(meaningful(request), limit).map((ranked) => index.byKey.get(ranked.id)!);
}

export async function chooseSkills(asked: ChoiceRequest): Promise<SkillChoice> {
  const { index, request, threshold, maxActive, llm } = asked;
  if (index.candidates.length === 0) return { chosen: [], via: "lexical", corrections: [] };
  if (index.candidates.length <= threshold || llm === undefined) return { chosen: lexicalChoice(index, request, maxActive), via: "lexical", corrections: [] };
  const names = await askModel(asked, llm);
  if (names === undefined) return { chosen: lexicalChoice(index, request, maxActive), via: "lexical", corrections: [] };
  return { ...checkNames(index, names, maxActive), via: "model" };
}

/** The index lines the prompt shows: all when they fit, else the most relevant first until the budget is spent. */
export function shownLines(index: CandidateIndex, request: string): string[] {
  const all = index.candidates.map((c) => c.line);
  let bytes = all.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
  if (bytes <= SELECTION_INDEX_BYTES) return all;
  const ranked = index.text.search(meaningful(request), index.candidates.length).map((r) => index.byKey.get(r.id)!);
  const seen = new Set(ranked.map((c) => c.key));
  const order = [...ranked, ...index.candidates.filter((c) => !seen.has(c.key))];
  const lines: string[] = [];
  bytes = 0;
  for (const { line } of order) {
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > SELECTION_INDEX_BYTES) break;
    lines.push(line);
    bytes += size;
  }
  return lines;
}

async function askModel({ index, request, maxActive, record, signal }: ChoiceRequest, llm: LlmProvider): Promise<string[] | undefined> {
  const messages = skillSelectionMessages({ request, lines: shownLines(index, request), total: index.candidates.length, maxActive });
  const started = Date.now();
  let completion: LlmCompletion;
  try {
    completion = await llm.complete({
      phase: "skill_selection",
      messages,
      json: { name: "skill_selection", schema: SKILL_SELECTION_SCHEMA },
      temperature: 0,
      maxTokens: SELECTION_MAX_TOKENS,
      maxOutputBytes: SELECTION_MAX_BYTES,
      signal,
    });
  } catch (error) {
    record?.({ type: "skill_selection", messages, attempt: 1, started, model: llm.model, error });
    throw error;
  }
  record?.({ type: "skill_selection", messages, attempt: 1, started, model: llm.model, completion });
  return completion.truncated === true ? undefined : parseSkillSelection(completion.text);
}

function checkNames(index: CandidateIndex, given: readonly string[], maxActive: number): Omit<SkillChoice, "via"> {
  const chosen: SkillCandidate[] = [];
  const corrections: { given: string; corrected?: string }[] = [];
  const keys = [...index.byKey.keys()];
  let guesses = 0;
  // A did-you-mean reads every key: a few per answer, never one per name of a runaway list.
  const nearMiss = (name: string): string | undefined => (guesses++ < MAX_GUESSES ? closest(name.slice(0, 200), keys) : undefined);
  for (const name of given.slice(0, MAX_NAMES_READ)) {
    // A bare name is read in the namespace that has it (the first, in index order).
    const key = index.byKey.has(name) ? name : (keys.find((k) => !name.includes("/") && k.endsWith(`/${name}`)) ?? nearMiss(name));
    if (key !== name) corrections.push({ given: name.slice(0, 200), ...(key === undefined ? {} : { corrected: key }) });
    const candidate = key === undefined ? undefined : index.byKey.get(key);
    if (candidate !== undefined && !chosen.includes(candidate) && chosen.length < maxActive) chosen.push(candidate);
  }
  return { chosen, corrections };
}
