/**
 * Words for lexical retrieval: Unicode letters and digits, lowercased, accents folded (NFKD without
 * its combining marks, so "café" and "cafe" meet), a small English stop list left out, and a light
 * suffix stemmer so "pack", "packs", "packing" and "packed" are one term. Light on purpose: a full
 * Porter stemmer conflates more than recall of short facts and episodes needs, and is harder to
 * predict for a user who wonders why something was (not) recalled.
 */

const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about also an and are as at be been but by can could did do does for from had has have he her his how i if in into " +
    "is it its just me might must my of on or our shall she should so than that the their them then there these they this " +
    "those to very was we were what when where which who whom why will with would you your"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}]+/gu;
const COMBINING = /\p{M}+/gu;
const VOWEL = /[aeiouy]/;
const DIGIT = /\p{N}/u;

/** Double consonants a dropped -ing/-ed leaves behind ("running" → "runn" → "run"); l, s and z stay doubled ("falling" → "fall"). */
function undouble(stem: string): string {
  const last = stem[stem.length - 1]!;
  return stem.length > 3 && last === stem[stem.length - 2] && !"aeiouylsz".includes(last) ? stem.slice(0, -1) : stem;
}

/** Strips -ing / -ed when at least three letters with a vowel remain ("bring", "red", "need" stay). */
function stripVerbEnding(word: string): string {
  for (const suffix of ["ing", "ed"]) {
    if (!word.endsWith(suffix) || (suffix === "ed" && word.endsWith("eed"))) continue;
    const stem = word.slice(0, -suffix.length);
    if (stem.length >= 3 && VOWEL.test(stem)) return undouble(stem);
  }
  return word;
}

/** The light stemmer: plural -s/-ies, -ing/-ed, -ly, then a final -e (so "hope", "hoped" and "hoping" meet). */
export function stem(word: string): string {
  if (word.length <= 3 || DIGIT.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y";
  else if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  w = stripVerbEnding(w);
  if (w.endsWith("ly") && w.length >= 6) w = w.slice(0, -2);
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** Folds case and accents: NFKD splits "é" into "e" and a combining mark, which is dropped (after lowercasing, which can add marks: "İ"). */
export function fold(text: string): string {
  return text.toLowerCase().normalize("NFKD").replace(COMBINING, "");
}

/** The terms of `text`, in order, at most `maxTokens` of them (stop words are not counted). */
export function tokenize(text: string, maxTokens = Number.POSITIVE_INFINITY): string[] {
  const terms: string[] = [];
  for (const [word] of fold(text).matchAll(WORD)) {
    if (terms.length >= maxTokens) break;
    if (!STOP_WORDS.has(word)) terms.push(stem(word));
  }
  return terms;
}
