/**
 * The limits of skills per natural request, read once when the context source is built: option >
 * variable > default. A value out of range fails start-up naming the variable, never a request.
 */
import { checkInteger, integerFromEnv } from "../util/index.js";

/** The skills context source's name: the key of its evidence in the execution record. */
export const SKILLS_SOURCE = "skills";

export const SKILL_SELECTION_THRESHOLD_ENV = "MANIFOLD_SKILL_SELECTION_THRESHOLD";
export const SKILL_BUDGET_ENV = "MANIFOLD_SKILL_BUDGET_BYTES";

/** Skills active in one request at most: each one's instructions are followed, so a few, not a library. */
export const MAX_ACTIVE_SKILLS = 3;
/** Most bytes of one resource shown in the prompt; the rest is cut with a note. */
export const RESOURCE_SHOWN_BYTES = 4096;

export interface SkillsContextSettings {
  /** Up to this many candidates the choice is lexical; past it, one `skill_selection` model call. @defaultValue `MANIFOLD_SKILL_SELECTION_THRESHOLD`, else 8 */
  readonly selectionThreshold: number;
  /** Most bytes of the Skills section (instructions and resources). @defaultValue `MANIFOLD_SKILL_BUDGET_BYTES`, else 8192 */
  readonly budgetBytes: number;
  /** Skills active at most, 1–3. @defaultValue MAX_ACTIVE_SKILLS */
  readonly maxActive: number;
  /**
   * How long the compact index of the candidates is reused before the registry is listed again (a
   * publish, pin or retirement shows within this time); 0 lists it for every request. @defaultValue 5000
   */
  readonly indexTtlMs: number;
}

export const DEFAULT_INDEX_TTL_MS = 5_000;

export function readSkillsContextSettings(
  env: Readonly<Record<string, string | undefined>>,
  given: Partial<SkillsContextSettings> = {},
): SkillsContextSettings {
  const {
    selectionThreshold = integerFromEnv(env, SKILL_SELECTION_THRESHOLD_ENV, 8, { min: 1, max: 10_000 }),
    budgetBytes = integerFromEnv(env, SKILL_BUDGET_ENV, 8192, { min: 512, max: 256 * 1024 }),
    maxActive = MAX_ACTIVE_SKILLS,
    indexTtlMs = DEFAULT_INDEX_TTL_MS,
  } = given;
  return {
    selectionThreshold: checkInteger("selectionThreshold", selectionThreshold, { min: 1, max: 10_000 }),
    budgetBytes: checkInteger("budgetBytes", budgetBytes, { min: 512, max: 256 * 1024 }),
    maxActive: checkInteger("maxActive", maxActive, { min: 1, max: MAX_ACTIVE_SKILLS }),
    indexTtlMs: checkInteger("indexTtlMs", indexTtlMs, { min: 0, max: 3_600_000 }),
  };
}
