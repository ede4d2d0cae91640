/**
 * User memory's variables, read at start-up (a bad value fails there, naming it) by the memory feature's
 * shell, and again where the parts are built: the facts kept per user, how long they live, recall's budget.
 */
import { durationFromEnv } from "../../spec/index.js";
import { integerFromEnv } from "../../util/index.js";
import { DEFAULT_FACTS_TTL_MS, DEFAULT_MAX_FACTS } from "./store/bounds.js";

type Env = Readonly<Record<string, string | undefined>>;

export const USER_MEMORY_MAX_FACTS_ENV = "MANIFOLD_USER_MEMORY_MAX_FACTS";
export const USER_MEMORY_TTL_ENV = "MANIFOLD_USER_MEMORY_TTL";
export const USER_MEMORY_BUDGET_ENV = "MANIFOLD_USER_MEMORY_BUDGET_BYTES";
export const DEFAULT_RECALL_BUDGET_BYTES = 2048;

export const userMaxFacts = (env: Env): number => integerFromEnv(env, USER_MEMORY_MAX_FACTS_ENV, DEFAULT_MAX_FACTS, { min: 1, max: 1_000_000 });

export function userFactsTtlMs(env: Env): number {
  const ttlMs = durationFromEnv(env, USER_MEMORY_TTL_ENV, DEFAULT_FACTS_TTL_MS);
  if (!(ttlMs >= 1000)) throw new RangeError(`${USER_MEMORY_TTL_ENV} must be at least 1s`);
  return ttlMs;
}

export const userRecallBudgetBytes = (env: Env): number => integerFromEnv(env, USER_MEMORY_BUDGET_ENV, DEFAULT_RECALL_BUDGET_BYTES, { min: 256, max: 65_536 });
