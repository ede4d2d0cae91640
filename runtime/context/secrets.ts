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

/** A registered secret this long or longer is also redacted where a cut copy of it stands as its own token. */
const CUT_SECRET_LENGTH = 12;
/** The shortest cut copy (a prefix) redacted: `sk-test` of an OpenAI key is 7; 4 would garble ordinary words. */
const MIN_CUT = 6;
const TOKEN_CHAR = /[A-Za-z0-9_-]/;

/**
 * Credentials by their shape, registered or not: OpenAI-style `sk-…` keys (from 4 characters after
 * the dash), bearer tokens, JWTs. Long hex or base64 runs are not redacted by shape: trace ids, hashes
 * and ids in log lines look the same; such a value is redacted when it is registered.
 */
const KEY_SHAPES: readonly (readonly [RegExp, string])[] = [
  [/\b(Bearer)\s+[A-Za-z0-9._~+/-]+=*/gi, `$1 ${REDACTED}`],
  [/\bsk-[A-Za-z0-9][A-Za-z0-9_-]{3,}/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, REDACTED],
];

/** Every place a prefix of `secret` (at least MIN_CUT long) stands as a whole token, replaced. */
function redactCut(text: string, secret: string): string {
  const head = secret.slice(0, MIN_CUT);
  let out = "";
  let from = 0;
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, at + 1)) {
    if (at < from || (at > 0 && TOKEN_CHAR.test(text[at - 1]!))) continue;
    let end = at + MIN_CUT;
    while (end < text.length && end - at < secret.length && text[end] === secret[end - at]) end += 1;
    if (end < text.length && TOKEN_CHAR.test(text[end]!)) continue;
    out += text.slice(from, at) + REDACTED;
    from = end;
  }
  return out + text.slice(from);
}

export function redactSecrets(text: string): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  const registered = [...secrets.keys()].sort((a, b) => b.length - a.length);
  for (const secret of registered) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  // A key shown cut (`sk-test…`, as error messages print keys) is still the key's.
  for (const secret of registered) {
    if (secret.length >= CUT_SECRET_LENGTH && out.includes(secret.slice(0, MIN_CUT))) out = redactCut(out, secret);
  }
  for (const [shape, replacement] of KEY_SHAPES) out = out.replace(shape, replacement);
  return out;
}

/** Header names with every value replaced: the serialised form of a set of propagated headers. */
export function redactValues(headers: Iterable<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name] of headers) out[name] = REDACTED;
  return out;
}
