/**
 * Durations as manifests and request bodies write them: a positive whole number and a unit
 * (`250ms`, `90s`, `10m`, `1h`, `1d`). One parser for every place that takes one (step and task
 * timeouts, HITL expiry, `POST /api/v1/tasks`), so they all accept exactly the same strings.
 */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const DURATION_PATTERN = /^([1-9][0-9]*)(ms|s|m|h|d)$/;

/** Milliseconds, or undefined when `text` is not a duration or is too large to be exact. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text);
  if (match === null) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** A duration environment variable (`30s`, `5m`, `72h`): unset or empty is `fallbackMs`; anything else must parse, or start-up fails naming it. */
export function durationFromEnv(env: Readonly<Record<string, string | undefined>>, name: string, fallbackMs: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallbackMs;
  const ms = parseDuration(text);
  if (ms === undefined) throw new RangeError(`${name} must be a duration such as 30s, 5m or 72h, not ${JSON.stringify(text.slice(0, 40))}`);
  return ms;
}
