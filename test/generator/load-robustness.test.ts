import { test } from "uvu";
import * as assert from "uvu/assert";
import { isDiagnosticCode } from "../../runtime/manifest/codes.js";
import { loadSources } from "../support/manifests.js";
import { GEOCODING_TOOL, TRAVEL_AGENT, TRAVEL_WORKFLOW, WEATHER_TOOL } from "./load-helpers.js";

/** Deterministic, so a failure reproduces: mulberry32. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  ":",
  "-",
  " ",
  "\n",
  "  ",
  "{",
  "}",
  "[",
  "]",
  ",",
  "&a",
  "*a",
  "!!set",
  "'",
  '"',
  "#",
  "---",
  "\t",
  "?",
  "|",
  ">",
  "~",
  "null",
  "1e9",
  "__proto__",
  "kind: workflow",
  "\uFEFF",
  "\u0000",
];

function mutate(text: string, next: () => number): string {
  let out = text;
  const edits = 1 + Math.floor(next() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(next() * out.length);
    const choice = next();
    if (choice < 0.4) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(next() * 8));
    else if (choice < 0.8) out = out.slice(0, at) + PIECES[Math.floor(next() * PIECES.length)]! + out.slice(at);
    else out = out.slice(0, at) + out.slice(Math.floor(next() * out.length));
  }
  return out;
}

test("mutated manifests never throw and every diagnostic is positioned and coded", () => {
  const next = random(20260101);
  const bases = [WEATHER_TOOL, GEOCODING_TOOL, TRAVEL_AGENT, TRAVEL_WORKFLOW];
  for (let round = 0; round < 200; round++) {
    const sources = bases.map((text, i) => ({ file: `m/${i}.yaml`, text: mutate(text, next) }));
    const project = loadSources(sources);
    for (const d of project.diagnostics) {
      const lines = (project.sources?.get(d.file) ?? "").split("\n").length;
      assert.ok(isDiagnosticCode(d.code), d.code);
      assert.ok(d.line >= 1 && d.line <= Math.max(1, lines) && d.column >= 1, JSON.stringify({ d, text: project.sources?.get(d.file) }));
      assert.ok(d.message.length > 0);
    }
  }
});

// How fast it loads is a speed aim: bench/generator/load-large.ts measures it.
test("a large manifest (about 600 KiB, 2000 capabilities) loads without diagnostics", () => {
  const capability = (i: number) =>
    `  - name: cap_${i}\n    description: Capability ${i}\n    input:\n      required:\n        - { name: a, type: string, example: x, description: "${"d".repeat(100)}" }\n        - { name: b, type: integer, example: ${i} }\n`;
  const text = `kind: tool\nname: big\ndescription: d\ncapabilities:\n${Array.from({ length: 2000 }, (_, i) => capability(i)).join("")}`;
  const project = loadSources([{ file: "big.yaml", text }]);
  assert.equal(project.diagnostics, []);
  assert.is(project.manifests[0]?.component?.capabilities.length, 2000);
});

test.run();
