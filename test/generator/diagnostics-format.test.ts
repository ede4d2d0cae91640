import { test } from "uvu";
import * as assert from "uvu/assert";
import { formatDiagnostics, summariseDiagnostics } from "../../runtime/manifest/diagnostics/format.js";
import { loadManifestText } from "../support/manifests.js";
import type { Diagnostic } from "../../runtime/manifest/project.js";

const error: Diagnostic = { file: "m/a.yaml", line: 2, column: 7, severity: "error", code: "MF1205", message: "`name` \"A\" is invalid: use a-z, 0-9, '-'" };
const warning: Diagnostic = { file: "m/b, c.yaml", line: 1, column: 1, severity: "warning", code: "MF1311", message: "100% sure:\nline two\r" };
const sources = new Map([["m/a.yaml", "kind: tool\nname: A\n"]]);

test("pretty: path:line:col - severity code: message, then the line and a caret when the source is known", () => {
  const text = formatDiagnostics([error, warning], "pretty", { color: false, sources });
  assert.is(
    text,
    [
      "m/a.yaml:2:7 - error MF1205: `name` \"A\" is invalid: use a-z, 0-9, '-'",
      "2 | name: A",
      "  |       ^",
      "",
      "m/b, c.yaml:1:1 - warning MF1311: 100% sure:\nline two\r",
    ].join("\n"),
  );
  assert.is(formatDiagnostics([error], "pretty", { color: false }), "m/a.yaml:2:7 - error MF1205: `name` \"A\" is invalid: use a-z, 0-9, '-'");
  assert.is(formatDiagnostics([], "pretty", { color: false }), "");
});

test("pretty: the caret follows tabs and a wide gutter", () => {
  const d: Diagnostic = { ...error, line: 10, column: 3 };
  const lines = `${"\n".repeat(9)}\t\tx: 1\n`;
  assert.is(
    formatDiagnostics([d], "pretty", { color: false, sources: new Map([["m/a.yaml", lines]]) })
      .split("\n")
      .slice(1)
      .join("\n"),
    "10 | \t\tx: 1\n   | \t\t^",
  );
});

test("pretty: a long line shows 160 characters around the column, cut with …; control characters show as ?", () => {
  const line = `${"a".repeat(5_000)}X${"b".repeat(5_000)}`;
  const d: Diagnostic = { ...error, line: 1, column: 5_001 };
  const [, source, caret] = formatDiagnostics([d], "pretty", { color: false, sources: new Map([["m/a.yaml", line]]) }).split("\n");
  assert.is(source, `1 | …${"a".repeat(80)}X${"b".repeat(79)}…`);
  assert.is(caret!.indexOf("^"), source!.indexOf("X"), "the caret stays under the column");
  const near: Diagnostic = { ...error, line: 1, column: 3 };
  const [, start] = formatDiagnostics([near], "pretty", { color: false, sources: new Map([["m/a.yaml", line]]) }).split("\n");
  assert.is(start, `1 | ${"a".repeat(160)}…`);
  const first: Diagnostic = { ...error, line: 1, column: 1 };
  const [, shown] = formatDiagnostics([first], "pretty", { color: false, sources: new Map([["m/a.yaml", "x: \u001b[2J\u001b]0;pwned\u0007"]]) }).split("\n");
  assert.is(shown, "1 | x: ?[2J?]0;pwned?");
});

test("pretty with colour: red error, yellow warning, dim code; nothing else changes", () => {
  const text = formatDiagnostics([error, warning], "pretty", { color: true });
  assert.ok(text.includes("\u001b[31merror\u001b[39m \u001b[2mMF1205\u001b[22m:"));
  assert.ok(text.includes("\u001b[33mwarning\u001b[39m \u001b[2mMF1311\u001b[22m:"));
  assert.is(text.replace(/\u001b\[\d+m/g, ""), formatDiagnostics([error, warning], "pretty", { color: false }));
  assert.not.ok(formatDiagnostics([error], "pretty", { color: false }).includes("\u001b"));
});

test("json: an array of {file, line, column, severity, code, message}", () => {
  const text = formatDiagnostics([error, warning], "json", { color: true, sources });
  assert.equal(JSON.parse(text), [error, warning]);
  assert.equal(Object.keys(JSON.parse(text)[0]), ["file", "line", "column", "severity", "code", "message"]);
  assert.not.ok(text.includes("\u001b"));
  assert.is(formatDiagnostics([], "json", { color: false }), "[]");
});

test("github: workflow commands with data and property escaping", () => {
  assert.is(
    formatDiagnostics([error, warning], "github", { color: true }),
    [
      "::error file=m/a.yaml,line=2,col=7,title=MF1205::`name` \"A\" is invalid: use a-z, 0-9, '-'",
      "::warning file=m/b%2C c.yaml,line=1,col=1,title=MF1311::100%25 sure:%0Aline two%0D",
    ].join("\n"),
  );
  assert.is(
    formatDiagnostics([{ ...error, file: "C:/x.yaml" }], "github", { color: false }).split("::")[1],
    "error file=C%3A/x.yaml,line=2,col=7,title=MF1205",
  );
});

test("a loaded project formats with its own sources", () => {
  const project = loadManifestText("m/x.yaml", "kind: tool\nname: t\ndescription: d\ncapabilities:\n  - { name: a, description: b, internal: yes }\n");
  const text = formatDiagnostics(project.diagnostics, "pretty", { color: false, ...(project.sources && { sources: project.sources }) });
  assert.is(
    text,
    `m/x.yaml:5:42 - error MF1203: \`capabilities[0].internal\` must be a boolean (true or false), got a string\n5 |   - { name: a, description: b, internal: yes }\n  | ${" ".repeat(41)}^`,
  );
});

test("summariseDiagnostics counts errors and warnings", () => {
  assert.is(summariseDiagnostics([]), "no problems");
  assert.is(summariseDiagnostics([error]), "1 error");
  assert.is(summariseDiagnostics([warning]), "1 warning");
  assert.is(summariseDiagnostics([error, error, warning]), "2 errors, 1 warning");
  assert.is(summariseDiagnostics([error, warning, warning]), "1 error, 2 warnings");
});

test.run();
