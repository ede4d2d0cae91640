/**
 * The plain-subset YAML reader gen uses before its full parser: wherever it answers a value, the full
 * parser gives that text no diagnostic and the same value (same keys in the same order); it answers for
 * the bench's synthesized manifests; and it leaves everything unusual to the full parser. Checked on
 * every YAML file in the repository, on hand-written edge cases, and on thousands of mutated texts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { toolManifest } from "../../bench/gen/synth.js";
import { plainYamlValue } from "../../generator/plain-yaml.js";
import { manifestText } from "../../runtime/manifest/load-sources.js";
import { parseManifest } from "../../runtime/manifest/parse.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
const SKIP = new Set(["node_modules", ".git", "dist"]);

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

/** Undefined when the reader leaves `text` to the full parser, else whether the full parser agrees. */
function agrees(text: string): boolean | undefined {
  const fast = plainYamlValue(text);
  if (fast === undefined) return undefined;
  const full = parseManifest("m.yaml", text);
  return full.diagnostics.length === 0 && isDeepStrictEqual(full.value, fast) && JSON.stringify(full.value) === JSON.stringify(fast);
}

const texts = yamlFiles(ROOT).map((path) => ({ path, text: manifestText(readFileSync(path, "utf8")) }));

test("on every YAML file in the repository the reader agrees with the full parser or leaves the file to it", () => {
  let read = 0;
  for (const { path, text } of texts) {
    const verdict = agrees(text);
    assert.is.not(verdict, false, path);
    if (verdict) read++;
  }
  assert.ok(read >= 40, `read ${read} of ${texts.length}`);
});

test("it reads the bench's synthesized manifests, which are all in the subset", () => {
  for (let t = 0; t < 30; t++) assert.is(agrees(toolManifest(t, 10, t % 3)), true, `tool ${t}`);
});

const SAME = [
  "a: 1\nb: -2\nc: 1.50\nd: 0\ne: 0.0\nf: 123456789012345\n",
  "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: true\ng: False\nh: TRUE\ni: yes\nj: no\nk: on\n",
  "a: NaN\nb: Infinity\nc: nul\nd: True-ish\ne: x1\n",
  'a: plain words, with [brackets] {braces} and, commas\nb: C# and a#b\nc: it\'s "quoted" inside\n',
  "a: value # a comment\nb: 'single # not a comment'\nc: \"double # neither\" # but this is\n",
  "a: 'it''s'\nb: \"tab\\tnew\\nline \\\"q\\\" back\\\\slash \\/\"\nc: ''\nd: \"\"\n",
  "a: { x: 1, y: [1, 2, { z: w }], e: {}, f: [] }\nb: [ 'q', \"r\", s t ]\n",
  "list:\n- a\n- b\nnext: 1\n",
  "list:\n  - a: 1\n    b: 2\n  - - x\n    - y\n  -\n  - # empty\n  -\n    c: 3\n",
  "# head\n\nkind: tool   \n  # indented comment\nname: x\n\n\n",
  "  indented: top\n  second: 2\n",
  "a:\n  b:\n    c:\n      d: deep\n  e: back\n",
  "a: b:c\nd: é unicode ✓ 🚀\n",
  "version: 1.0.0\ntimeout: 5m\nargs: [--import, tsx, -x]\nx: -foo\ny: 1_000\nz: 0o8\nw: .\nv: 0x\nu: 1.2.3\nt: ~x\ns: 12:30\n",
  "key:value: x\n",
  "a: - b\n",
  "a: x\n b: y\n",
  "a: 1\na: 2\n",
  "a: [1, 2,]\n",
  "a: { b: 1, b: 2 }\n",
  "a: [a: b]\n",
  `${"k".repeat(256)}: 1\nb: { ${"k".repeat(300)}: 1 }\n`,
];

const OUTSIDE = [
  "a: !!str 1\n",
  "a: &x 1\nb: *x\n",
  "a: |\n  text\n",
  "a: >\n  text\n",
  "a: multi\n  line\n",
  "a: 'multi\n  line'\n",
  "a:\tb\n",
  "a: 0x1F\nb: 1e3\n",
  "a: .5\n",
  "a: +1\n",
  "a: -0\n",
  "a: 007\n",
  "a: 0o17\n",
  `${"k".repeat(1025)}: 1\n`,
  `- ${"k".repeat(1025)}: 1\n`,
  "a: 1.\n",
  "a: -.inf\n",
  "a: .NaN\n",
  "a: [-, b]\n",
  "a: -\n",
  "? a\n: b\n",
  "---\na: 1\n",
  "%YAML 1.2\n---\na: 1\n",
  "__proto__: 1\n",
  "true: 1\n",
  '"a": 1\n',
  "- a\n- b\n",
  "",
  "# only a comment\n",
  "a: [1, 2\n",
  "a: b # c\n  d: e\n",
];

test("hand-written edge cases: agreement, and the unusual left to the full parser", () => {
  for (const text of SAME) assert.is.not(agrees(text), false, text);
  for (const text of OUTSIDE) assert.is(plainYamlValue(text), undefined, text);
  // Cases the subset must read, not only leave alone.
  for (const text of SAME.slice(0, 14)) assert.is(agrees(text), true, text);
});

/** A small seeded generator, so a failure names a case that can be run again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

const PIECES = [
  " ",
  "  ",
  "\n",
  ":",
  ": ",
  "-",
  "- ",
  "#",
  " #",
  ",",
  "[",
  "]",
  "{",
  "}",
  "'",
  '"',
  "\\",
  "!",
  "&",
  "*",
  "|",
  ">",
  "?",
  "%",
  "@",
  "0",
  "1",
  ".",
  "e",
  "~",
  "null",
  "true",
  "a",
];

function mutate(text: string, next: () => number): string {
  const at = Math.floor(next() * (text.length + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  switch (Math.floor(next() * 4)) {
    case 0:
      return text.slice(0, at) + pick(PIECES) + text.slice(at);
    case 1:
      return text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 3));
    case 2: {
      const lines = text.split("\n");
      const i = Math.floor(next() * lines.length);
      lines.splice(i, 0, lines[Math.floor(next() * lines.length)]!);
      return lines.join("\n");
    }
    default:
      return text.slice(0, at) + pick(PIECES) + text.slice(at + 1);
  }
}

test("on thousands of mutated texts the reader agrees with the full parser or leaves the text to it", () => {
  const bases = [...SAME, toolManifest(1, 2), ...texts.filter(({ text }) => agrees(text) === true && text.length < 6000).map(({ text }) => text)];
  const next = random(31);
  let read = 0;
  for (let n = 0; n < 4000; n++) {
    let text = bases[n % bases.length]!;
    for (let k = 1 + Math.floor(next() * 3); k > 0; k--) text = mutate(text, next);
    const verdict = agrees(text);
    assert.is.not(verdict, false, `mutant ${n}: ${JSON.stringify(text)}`);
    if (verdict) read++;
  }
  assert.ok(read > 500, `the reader read ${read} mutants`);
});

test.run();
