import { readFile, readdir } from "node:fs/promises";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DIAGNOSTIC_CODES } from "../../runtime/manifest/codes.js";
import { WORKFLOW_CHECK_CODES } from "../../runtime/manifest/dataflow/codes.js";

const root = new URL("../../", import.meta.url);

test("docs/diagnostics.md lists exactly the codes of DIAGNOSTIC_CODES, with their severity", async () => {
  const doc = await readFile(new URL("docs/diagnostics.md", root), "utf8");
  const rows = [...doc.matchAll(/^\| (MF\d{4}) \| (error|warning) \|/gm)].map((m) => [m[1], m[2]]);
  const expected = Object.entries(DIAGNOSTIC_CODES).map(([code, info]) => [code, info.severity]);
  assert.equal(rows, expected);
});

test("codes stay in their ranges; MF14xx are exactly the workflow checker's", () => {
  for (const code of Object.keys(DIAGNOSTIC_CODES)) assert.match(code, /^MF1(0|2|3|4)\d\d$/);
  const dataFlow = Object.keys(DIAGNOSTIC_CODES).filter((code) => code.startsWith("MF14"));
  assert.equal(dataFlow, Object.keys(WORKFLOW_CHECK_CODES));
});

test("every code has a test that produces it", async () => {
  const dir = new URL("test/generator/", root);
  const files = (await readdir(dir)).filter((f) => (f.startsWith("load-") || f.startsWith("emit-")) && f.endsWith(".test.ts"));
  const text = (await Promise.all(files.map((f) => readFile(new URL(f, dir), "utf8")))).join("\n");
  const untested = Object.keys(DIAGNOSTIC_CODES).filter((code) => !text.includes(`"${code}"`));
  assert.equal(untested, []);
});

test.run();
