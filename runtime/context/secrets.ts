/**
 * Tokens and propagated header values must never reach a log line, whatever quoted them (a handler's
 * error message, a stack, a field). Everything that holds such a value registers it here, and the
 * logger replaces each registered value in every line it writes. The set is bounded, most recent
 * first kept, so rotating or per-user tokens cannot grow it without limit.
 */
export const REDACTED = "[REDACTED]";

/** Shorter values (a tenant `t1`) would garble unrelated text; they are the caller's to keep out of logs. */
const MIN_LENGTH = 4;
const MAX_SECRETS = 512;

const SLOT = Symbol.for("agent-manifold.secrets");
const secrets: Map<string, true> = ((globalThis as Record<symbol, unknown>)[SLOT] ??= new Map<string, true>()) as Map<string, true>;

export function registerSecret(value: string | undefined): void {
  if (value === undefined || value.length < MIN_LENGTH) return;
  secrets.delete(value);
  secrets.set(value, true);
  if (secrets.size > MAX_SECRETS) secrets.delete(secrets.keys().next().value as string);
}

export function redactSecrets(text: string): string {
  if (secrets.size === 0) return text;
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const secret of [...secrets.keys()].sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** Header names with every value replaced: the serialised form of a set of propagated headers. */
export function redactValues(headers: Iterable<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name] of headers) out[name] = REDACTED;
  return out;
}
