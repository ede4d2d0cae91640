/**
 * A `kind: mcp` manifest with its lock file, loaded as gen loads it: its tools are capabilities that
 * agents `uses`, HITL names and workflows call with checked data flow; every MF16xx the loader
 * reports is positioned in the manifest.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadProject } from "../../generator/load-project.js";
import type { McpLockTool } from "../../runtime/spec/index.js";
import { tempProject } from "./load-helpers.js";
import { lockText, mcpManifest } from "./mcp-support.js";

const SEARCH: McpLockTool = {
  name: "search-notes",
  description: "Finds notes",
  inputSchema: { type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } }, required: ["query"] },
  outputSchema: {
    type: "object",
    properties: { notes: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } }, total: { type: "integer" }, extra: {} },
    required: ["notes", "total"],
  },
};
const SHOUT: McpLockTool = { name: "shout", title: "Shout", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } };
const HTTP = mcpManifest("url: http://127.0.0.1:9/mcp\n");

async function load(files: Readonly<Record<string, string>>) {
  const { root, cleanup } = await tempProject({ "package.json": "{}\n", ...Object.fromEntries(Object.entries(files).map(([p, t]) => [`m/${p}`, t])) });
  try {
    return await loadProject({ manifestsDir: "m", cwd: root });
  } finally {
    await cleanup();
  }
}

const where = (project: Awaited<ReturnType<typeof load>>) => project.diagnostics.map((d) => [d.code, d.file, d.line, d.column]);

const workflow = (output: string) => `kind: workflow
name: find
version: "1.0"
inputs:
  q: { type: string, required: true }
steps:
  - name: s
    tool: notes
    action: search_notes
    inputs: { query: "\${inputs.q}" }
  - name: loud
    tool: notes
    action: shout
    depends_on: [s]
    inputs: { text: "${output}" }
outputs:
  total: "\${steps.s.output.total}"
  shouted: "\${steps.loud.output.text}"
`;

test("a workflow step reading a field the MCP tool's output lacks is MF1406 at its place; real and any fields pass", async () => {
  const lock = lockText([SEARCH, SHOUT]);
  const bad = await load({ "notes.yaml": HTTP, "notes.mcp-lock.json": lock, "find.yaml": workflow("${steps.s.output.no_such_field}") });
  assert.equal(where(bad), [["MF1406", "m/find.yaml", 15, 22]]);
  assert.match(bad.diagnostics[0]!.message, "fields: notes, total, extra");
  const good = await load({ "notes.yaml": HTTP, "notes.mcp-lock.json": lock, "find.yaml": workflow("${steps.s.output.extra.anything}") });
  assert.equal(where(good), []);
  // `total` is an integer bound whole to a string input: the type check runs over the mapped fields.
  const typed = await load({ "notes.yaml": HTTP, "notes.mcp-lock.json": lock, "find.yaml": workflow("${steps.s.output.total}") });
  assert.equal(
    typed.diagnostics.map((d) => d.code),
    ["MF1409"],
  );
});

test("an agent uses it like a tool: sensitive_capabilities by capability name, the component spec carries the server", async () => {
  const agent = (sensitive: string) =>
    `kind: agent\nname: helper\ndescription: Helps\nuses: [notes]\ncapabilities: []\nhitl:\n  default_action: reject\n  sensitive_capabilities: [${sensitive}]\n`;
  const project = await load({ "notes.yaml": HTTP, "notes.mcp-lock.json": lockText([SEARCH, SHOUT]), "helper.yaml": agent("search_notes") });
  assert.equal(where(project), []);
  const notes = project.manifests.find((m) => m.name === "notes")!;
  assert.is(notes.kind, "mcp");
  assert.is(notes.component!.kind, "tool");
  assert.equal(notes.component!.mcpServer, { url: "http://127.0.0.1:9/mcp", hash: notes.component!.mcpServer!.hash });
  assert.equal(
    notes.component!.capabilities.map((c) => [c.name, c.key, c.description, c.endpoint, c.mcpTool!.name]),
    [
      ["search_notes", "searchNotes", "Finds notes", "mcp:search-notes", "search-notes"],
      ["shout", "shout", "Shout", "mcp:shout", "shout"],
    ],
  );
  assert.equal(notes.component!.capabilities[1]!.output, {
    required: [{ name: "text", type: "string", description: "The tool's text content" }],
    optional: [],
  });
  const typo = await load({ "notes.yaml": HTTP, "notes.mcp-lock.json": lockText([SEARCH, SHOUT]), "helper.yaml": agent("search_note") });
  assert.equal(
    typo.diagnostics.map((d) => d.code),
    ["MF1311"],
  );
});

test("MF1601: both or neither of url and command, a URL that is not http, a key of the other transport", async () => {
  const at = async (address: string) => where(await load({ "notes.yaml": mcpManifest(address) }));
  assert.equal(await at("url: http://x/mcp\ncommand: node\n"), [["MF1601", "m/notes.yaml", 5, 10]]);
  assert.equal(await at(""), [["MF1601", "m/notes.yaml", 1, 7]]);
  assert.equal(await at("url: file:///etc/passwd\n"), [["MF1601", "m/notes.yaml", 4, 6]]);
  assert.equal(await at("command: node\nauth: { token_env: T }\n"), [["MF1601", "m/notes.yaml", 5, 7]]);
  assert.equal(await at("url: http://x/mcp\nargs: [a]\n"), [["MF1601", "m/notes.yaml", 5, 7]]);
});

test("MF1602 missing lock, MF1603 a lock edited by hand or of another version, MF1604 two tools with one capability name", async () => {
  assert.equal(where(await load({ "notes.yaml": HTTP })), [["MF1602", "m/notes.yaml", 2, 7]]);
  const edited = lockText([SHOUT]).replace('"Shout"', '"Yell"');
  const invalid = await load({ "notes.yaml": HTTP, "notes.mcp-lock.json": edited });
  assert.equal(where(invalid), [["MF1603", "m/notes.yaml", 2, 7]]);
  assert.match(invalid.diagnostics[0]!.message, "does not match its tools");
  const version = await load({ "notes.yaml": HTTP, "notes.mcp-lock.json": lockText([SHOUT]).replace('"lockfileVersion": 1', '"lockfileVersion": 2') });
  assert.match(version.diagnostics[0]!.message, "lockfileVersion 2");
  const clash = await load({ "notes.yaml": HTTP, "notes.mcp-lock.json": lockText([SHOUT, { ...SHOUT, name: "Shout" }]) });
  assert.equal(where(clash), [["MF1604", "m/notes.yaml", 2, 7]]);
  assert.match(clash.diagnostics[0]!.message, "tools `Shout` and `shout` of the server both become the capability `shout`");
});

test("a workflow calling a server whose lock is missing reports only the lock, not the step", async () => {
  const project = await load({ "notes.yaml": HTTP, "find.yaml": workflow("x") });
  assert.equal(
    project.diagnostics.map((d) => d.code),
    ["MF1602"],
  );
});

test.run();
