import { readFile } from "node:fs/promises";
import { CODE_CORPUS } from "./code-corpus.js";
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
  for (const code of Object.keys(DIAGNOSTIC_CODES)) assert.match(code, /^MF1(0|2|3|4|5|6|7)\d\d$/);
  const dataFlow = Object.keys(DIAGNOSTIC_CODES).filter((code) => code.startsWith("MF14"));
  assert.equal(dataFlow, Object.keys(WORKFLOW_CHECK_CODES));
});

test("every code is produced by the loader from its corpus entry (test/generator/code-corpus.ts)", async () => {
  const missing: string[] = [];
  for (const [code, produce] of Object.entries(CODE_CORPUS)) {
    const found = await produce();
    if (!found.some((d) => d.code === code)) missing.push(`${code}: got ${JSON.stringify(found.map((d) => d.code))}`);
  }
  assert.equal(missing, []);
});

test.run();
