export interface IntegerRange {
  readonly min: number;
  /** @defaultValue Number.MAX_SAFE_INTEGER */
  readonly max?: number;
}

/**
 * The check of a whole-number option or environment value (a count, a size, milliseconds). A bad one
 * is a programming or deployment error, so it fails at start-up with a RangeError that names the
 * option (or variable) and the value it got, in one wording wherever it is raised.
 */
export function checkInteger(name: string, value: unknown, { min, max = Number.MAX_SAFE_INTEGER }: IntegerRange): number {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max) return value;
  const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
  const shown = typeof value === "string" ? JSON.stringify(value) : String(value);
  throw new RangeError(`${name} must be an integer ${range}, not ${shown}`);
}

/**
 * A whole-number environment variable: unset or blank is `fallback`; anything else is checked by
 * `checkInteger` under the variable's name (text that is not a number is shown as written).
 */
export function integerFromEnv(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number, range: IntegerRange): number {
  const text = env[name]?.trim();
  if (text === undefined || text === "") return checkInteger(name, fallback, range);
  return checkInteger(name, /^-?\d+$/.test(text) ? Number(text) : text, range);
}
