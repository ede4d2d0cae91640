/**
 * Episodic memory's variables, read once at start-up; a bad value fails there naming the variable.
 * The domain itself comes from the memory feature's settings (`MANIFOLD_AGENT_DOMAIN`, the
 * manifest's `memory.domain`, the agent's name).
 */
import { durationFromEnv } from "../../spec/index.js";
import { integerFromEnv } from "../../util/index.js";
import { DEFAULT_MAX_EPISODES, DEFAULT_RETENTION_MS } from "./store/records.js";

type Env = Readonly<Record<string, string | undefined>>;

export const EPISODES_MAX_ENV = "MANIFOLD_EPISODES_MAX";
export const RETENTION_ENV = "MANIFOLD_MEMORY_RETENTION";
export const REFLECTION_INTERVAL_ENV = "MANIFOLD_MEMORY_REFLECTION_INTERVAL";
export const EPISODIC_BUDGET_ENV = "MANIFOLD_EPISODIC_BUDGET_BYTES";

export const DEFAULT_REFLECTION_INTERVAL_MS = 10 * 60_000;
export const DEFAULT_EPISODIC_BUDGET_BYTES = 3072;

export interface EpisodicSettings {
  /** Episodes kept per domain (`MANIFOLD_EPISODES_MAX`, 100,000). */
  readonly maxEpisodes: number;
  /** How long episodes and fragments are kept (`MANIFOLD_MEMORY_RETENTION`, 30d). */
  readonly retentionMs: number;
  /** Between reflection and sweep passes (`MANIFOLD_MEMORY_REFLECTION_INTERVAL`, 10m). */
  readonly intervalMs: number;
  /** The episodic section's bytes in a planning prompt (`MANIFOLD_EPISODIC_BUDGET_BYTES`, 3072). */
  readonly budgetBytes: number;
}

export function resolveEpisodicSettings(env: Env = process.env): EpisodicSettings {
  const retentionMs = durationFromEnv(env, RETENTION_ENV, DEFAULT_RETENTION_MS);
  const intervalMs = durationFromEnv(env, REFLECTION_INTERVAL_ENV, DEFAULT_REFLECTION_INTERVAL_MS);
  if (retentionMs < 60_000) throw new RangeError(`${RETENTION_ENV} must be at least 1m`);
  if (intervalMs < 1_000) throw new RangeError(`${REFLECTION_INTERVAL_ENV} must be at least 1s`);
  return {
    maxEpisodes: integerFromEnv(env, EPISODES_MAX_ENV, DEFAULT_MAX_EPISODES, { min: 1, max: 10_000_000 }),
    retentionMs,
    intervalMs,
    budgetBytes: integerFromEnv(env, EPISODIC_BUDGET_ENV, DEFAULT_EPISODIC_BUDGET_BYTES, { min: 256, max: 65_536 }),
  };
}
