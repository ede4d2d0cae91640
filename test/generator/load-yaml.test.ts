import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadManifestText } from "../support/manifests.js";
import { single, where } from "./load-helpers.js";

const load = (text: string) => loadManifestText("m/x.yaml", text);
const VALID_REST = "name: t\ndescription: d\ncapabilities: [{ name: a, description: b }]\n";

test("MF1006: a YAML syntax error is reported where the parser stopped", () => {
  const d = single(load("kind: tool\nname: a: b\n"));
  assert.equal([d.code, d.line, d.column, d.severity], ["MF1006", 2, 7, "error"]);
  assert.match(d.message, /^YAML syntax error: nested mappings/);
});

test("MF1007: a duplicate key is reported at its second occurrence, in block and flow mappings", () => {
  const text = "kind: tool\nname: t\ndescription: d\ncapabilities:\n  - name: a\n    description: x\n    name: b\n";
  const d = single(load(text));
  assert.equal([d.code, d.line, d.column], ["MF1007", 7, 5]);
  assert.is(d.message, "duplicate key `name` in a mapping");
  assert.equal(where(load("kind: tool\nx: {a: 1, a: 2}\n")), [["MF1007", 2, 11]]);
});

test("MF1008: a second YAML document is refused at its `---`", () => {
  assert.equal(where(load(`kind: tool\n${VALID_REST}---\nkind: tool\n`)), [["MF1008", 5, 1]]);
});

test("MF1009: an alias bomb is refused at the first alias, without expanding it", () => {
  const row = (alias: string, anchor: string) => `${anchor}: &${anchor} [${Array(10).fill(`*${alias}`).join(", ")}]\n`;
  const text = `kind: tool\na: &a [x, x, x, x, x, x, x, x, x, x]\n${row("a", "b")}${row("b", "c")}${row("c", "d")}${row("d", "e")}`;
  const d = single(load(text));
  assert.equal([d.code, d.line, d.column], ["MF1009", 3, 8]);
  assert.match(d.message, /alias/);
});

test("MF1009: absurd nesting is a diagnostic, not a stack overflow", () => {
  const d = single(load(`kind: tool\nx: ${"[".repeat(20000)}${"]".repeat(20000)}\n`));
  // The column is where the parser ran out of stack, which depends on the machine.
  assert.equal([d.code, d.line], ["MF1009", 2]);
});

test("MF1010: tags that are not plain JSON data are reported at the tagged value", () => {
  assert.equal(where(load(`kind: tool\n${VALID_REST}extra: !!binary aGVsbG8=\n`)), [["MF1010", 5, 17]]);
  const d = single(load(`kind: tool\nname: !custom t\n`));
  assert.equal([d.code, d.line, d.column], ["MF1010", 2, 15]);
  assert.match(d.message, /unsupported YAML tag `!custom`/);
  // Explicit JSON tags are fine.
  assert.equal(where(load(`kind: tool\nname: !!str t\ndescription: d\ncapabilities: [{ name: a, description: b }]\n`)), []);
});

test("MF1011: a YAML warning does not stop the manifest from loading", () => {
  const project = load(`%FOO bar\n---\nkind: tool\n${VALID_REST}`);
  const d = single(project);
  assert.equal([d.code, d.line, d.column, d.severity], ["MF1011", 1, 1, "warning"]);
  assert.is(project.manifests.length, 1);
});

test("MF1012: an empty file, or one with only comments, is empty", () => {
  assert.equal(where(load("")), [["MF1012", 1, 1]]);
  assert.equal(where(load("# yaml-language-server: $schema=../manifest.schema.json\n\n")), [["MF1012", 1, 1]]);
  assert.equal(where(load("---\n")), [["MF1012", 1, 1]]);
});

test("MF1013: the top level must be a mapping", () => {
  assert.equal(where(load("- kind: tool\n")), [["MF1013", 1, 1]]);
  assert.equal(where(load('# note\n"just text"\n')), [["MF1013", 2, 1]]);
});

test("MF1014: a manifest without kind is reported at its top mapping", () => {
  const d = single(load("# yaml-language-server: $schema=x.json\nname: weather\n"));
  assert.equal([d.code, d.line, d.column], ["MF1014", 2, 1]);
});

test("MF1015: an unknown kind is reported at the value, with a suggestion", () => {
  const d = single(load("kind: tol\nname: x\n"));
  assert.equal([d.code, d.line, d.column], ["MF1015", 1, 7]);
  assert.match(d.message, /got "tol" \(did you mean "tool"\?\)/);
  assert.equal(where(load("kind:\n")), [["MF1015", 1, 1]]);
  assert.equal(where(load("kind: [tool]\n")), [["MF1015", 1, 7]]);
});

test("a BOM and CRLF line ends do not shift positions", () => {
  assert.equal(where(load("\uFEFFkind: tol\r\n")), [["MF1015", 1, 7]]);
  assert.equal(where(load("kind: tool\r\nname: t\r\ndescription: d\r\ncapabilities: 5\r\n")), [["MF1203", 4, 15]]);
});

test("CR-only line ends (old Mac files) are line breaks: the manifest loads, positions count them as lines", () => {
  const ok = load("kind: tool\rname: t\rdescription: d\rcapabilities:\r  - { name: a, description: b }\r");
  assert.equal(ok.diagnostics, []);
  assert.is(ok.manifests.length, 1);
  assert.equal(where(load("kind: tool\rname: t\rdescription: d\rcapabilities: 5\r")), [["MF1203", 4, 15]]);
});

test.run();
