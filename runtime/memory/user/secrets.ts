/**
 * The secret filter: a fact that looks like a credential is never stored, whatever the model says
 * (the extraction prompt also tells it not to propose one). It errs on the side of refusing: a value
 * holding a known key prefix, a JWT, a PEM block, a long high-entropy token or a card number that
 * passes Luhn, or a key named like a credential, is dropped. It says only whether, never what.
 */

/**
 * Keys that name a credential, as a whole snake_case word (`api_key`, `wifi_password`, `github_token`,
 * `bank_pin`, `seed_phrase`), and any key ending in `_key` (`openai_key`, `ssh_key`): a fact about a
 * key the user holds is worth less than the risk that its value is the key.
 */
const SECRET_KEY =
  /(?:^|_)(?:password|passwd|pwd|passphrase|passcode|secret|secrets|token|tokens|api_?key|apikey|private_key|access_key|secret_key|credentials?|cvv|cvc|pin|pin_code|otp|mfa|2fa|seed_phrase|mnemonic|recovery_codes?|backup_codes?|security_codes?)(?:_|$)|(?:^|_)keys?$/;

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
/** A URL with a password in it: `postgres://admin:hunter2@db.example.com`. */
const URL_CREDENTIALS = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/;
/** A credential stated in the value: "my password is hunter2", "PIN: 4821", "api key = …". */
const STATED = /\b(?:password|passwd|pwd|passphrase|passcode|pin|pin code|api[ _-]?key|secret key|access token)\s*(?:is|was|:|=)\s*\S/i;
/** Runs of base64, base64url or hex characters long enough to be a key. */
const TOKEN = /[A-Za-z0-9+/=_-]{24,}/g;
/** Groups of digits, each pair separated by one space or dash: card numbers as people type them, maybe with more digits around. */
const DIGIT_GROUPS = /\d+(?:[ -]\d+)*/g;
const CARD_DIGITS = { min: 13, max: 19 };

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

/**
 * Whether some consecutive groups of a run hold 13 to 19 digits that pass Luhn: a card number is
 * found with its expiry or security code after it ("4111 1111 1111 1111 123") or a prefix before it.
 */
function holdsCardNumber(value: string): boolean {
  for (const match of value.matchAll(DIGIT_GROUPS)) {
    const groups = match[0].split(/[ -]/);
    for (let first = 0; first < groups.length; first++) {
      let digits = "";
      for (let last = first; last < groups.length && digits.length + groups[last]!.length <= CARD_DIGITS.max; last++) {
        digits += groups[last];
        if (digits.length >= CARD_DIGITS.min && passesLuhn(digits)) return true;
      }
    }
  }
  return false;
}

/** Whether a fact with this key and value must not be stored: it names or holds a credential. */
export function looksSecret(key: string, value: string): boolean {
  if (SECRET_KEY.test(key)) return true;
  if (KEY_PREFIXES.some((re) => re.test(value)) || [JWT, PEM, URL_CREDENTIALS, STATED].some((re) => re.test(value))) return true;
  for (const match of value.matchAll(TOKEN)) if (looksRandom(match[0])) return true;
  return holdsCardNumber(value);
}
