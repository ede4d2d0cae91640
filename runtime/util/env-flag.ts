/** The longest stretch of a bad value an error quotes: enough to recognise it, not a whole pasted blob. */
const SHOWN_CHARS = 80;

/**
 * A boolean environment variable: unset or blank is `undefined` (the caller's default applies);
 * `true`/`1` and `false`/`0`, in any case and with surrounding blanks, are themselves. Anything else is
 * a deployment mistake, so it fails at start-up with a RangeError naming the variable and the value,
 * in one wording wherever a flag is read.
 */
export function envFlag(env: Readonly<Record<string, string | undefined>>, name: string): boolean | undefined {
  const raw = env[name];
  const value = raw?.trim().toLowerCase();
  if (raw === undefined || value === "") return undefined;
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  const shown = raw.length > SHOWN_CHARS ? `${raw.slice(0, SHOWN_CHARS)}…` : raw;
  throw new RangeError(`${name} must be true or false, not ${JSON.stringify(shown)}`);
}
