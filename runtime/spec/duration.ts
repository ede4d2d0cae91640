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
