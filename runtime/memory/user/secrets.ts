/**
 * The secret filter: a fact that looks like a credential is never stored, whatever the model says
 * (the extraction prompt also tells it not to propose one). It errs on the side of refusing: a value
 * holding a known key prefix, a JWT, a PEM block, a long high-entropy token or a card number that
 * passes Luhn, or a key named like a credential, is dropped. It says only whether, never what.
 */

/** Keys that name a credential, as a whole snake_case word (`api_key`, `wifi_password`, `github_token`). */
const SECRET_KEY =
  /(?:^|_)(?:password|passwd|passphrase|passcode|secret|secrets|token|tokens|api_?key|apikey|private_key|access_key|secret_key|credentials?|cvv|cvc|pin_code)(?:_|$)/;

/** Providers' key formats, each at a word start: OpenAI/Stripe, GitHub, Slack, AWS, Google, GitLab. */
const KEY_PREFIXES = [
  /(?:^|[^A-Za-z0-9])sk-[A-Za-z0-9_-]{12,}/,
  /(?:^|[^A-Za-z0-9])(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{8,}/,
  /(?:^|[^A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20,}/,
  /(?:^|[^A-Za-z0-9])github_pat_[A-Za-z0-9_]{20,}/,
  /(?:^|[^A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{8,}/,
  /(?:^|[^A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{12,}/,
  /(?:^|[^A-Za-z0-9])AIza[0-9A-Za-z_-]{20,}/,
  /(?:^|[^A-Za-z0-9])glpat-[A-Za-z0-9_-]{16,}/,
];
const JWT = /eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/;
const PEM = /-----BEGIN [A-Z0-9 ]+-----/;
/** Runs of base64, base64url or hex characters long enough to be a key. */
const TOKEN = /[A-Za-z0-9+/=_-]{24,}/g;
/** 13 to 19 digits, optionally grouped by spaces or dashes: card numbers as people type them. */
const CARD = /(?:\d[ -]?){12,18}\d/g;

/** Bits per character of a string's character distribution. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** A token with at least two of lower case, upper case and digits, and a spread-out alphabet: not a word, not a repeated pattern. */
function looksRandom(token: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((re) => re.test(token)).length;
  return classes >= 2 && entropy(token) >= 3;
}

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function holdsCardNumber(value: string): boolean {
  for (const match of value.matchAll(CARD)) {
    const digits = match[0].replace(/[ -]/g, "");
    if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)) return true;
  }
  return false;
}

/** Whether a fact with this key and value must not be stored: it names or holds a credential. */
export function looksSecret(key: string, value: string): boolean {
  if (SECRET_KEY.test(key)) return true;
  if (KEY_PREFIXES.some((re) => re.test(value)) || JWT.test(value) || PEM.test(value)) return true;
  for (const match of value.matchAll(TOKEN)) if (looksRandom(match[0])) return true;
  return holdsCardNumber(value);
}
