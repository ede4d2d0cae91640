/**
 * One small input per diagnostic code that the real loader must turn into that code. Typed as a
 * record over every `DiagnosticCode`, so a code added to the table without an entry here is a compile
 * error, and diagnostics-docs.test.ts loads each entry and fails when its code is not produced: a
 * code that nothing produces cannot hide behind a mention in a test file.
 */
import { readFileSync, readdirSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { loadProject } from "../../generator/load-project.js";
import { loadWorkflowText, type DiagnosticCode, type Diagnostic } from "../../runtime/manifest/index.js";
import { loadManifestText, loadSources, notGenerated } from "../support/manifests.js";
import { GEOCODING_TOOL, tempProject } from "./load-helpers.js";
import { syncMcpLocks } from "../../generator/mcp-locks.js";
import { lockText, mcpManifest, notesStdio } from "./mcp-support.js";
import { a2aCase, a2aLockText, a2aManifest, cardJson } from "./a2a-support.js";

type Produce = () => readonly Diagnostic[] | Promise<readonly Diagnostic[]>;

const text =
  (source: string): Produce =>
  () =>
    loadManifestText("m/x.yaml", source).diagnostics;
const files =
  (sources: Record<string, string>): Produce =>
  () =>
    loadSources(Object.entries(sources).map(([file, t]) => ({ file, text: t }))).diagnostics;

/** A folder on disk (for the file-level codes), loaded as gen loads one. */
function onDisk(setup: (root: string) => Promise<void>, manifestsDir = "m"): Produce {
  return async () => {
    const { root, cleanup } = await tempProject({ "m/ok.yaml": GEOCODING_TOOL });
    try {
      await setup(root);
      return (await loadProject({ manifestsDir, cwd: root })).diagnostics;
    } finally {
      await cleanup();
    }
  };
}

/** An agent listing `skills` (YAML) with skill folders written under m/ (`files`: path → content), loaded as gen loads it. */
function skillCase(skills: string, files: Readonly<Record<string, string>>): Produce {
  return onDisk(async (root) => {
    await writeFile(join(root, "m/g.yaml"), `kind: agent\nname: g\ndescription: d\ncapabilities: []\nskills: ${skills}\n`);
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(root, "m", path)), { recursive: true });
      await writeFile(join(root, "m", path), content);
    }
  });
}
const SKILL = (front: string, body = "Do it.\n") => `---\n${front}\n---\n${body}`;

/** A case of the bad-workflow corpus (fixtures/workflows), with the shared tools and agent. */
function workflowCase(name: string): Produce {
  const root = new URL("fixtures/workflows/", import.meta.url);
  return () => {
    const own = readdirSync(new URL(`${name}/`, root));
    const shared = readdirSync(new URL("_shared/", root)).filter((f) => !own.includes(f));
    const read = (dir: string, file: string) => ({ file: `${dir}/${file}`, text: readFileSync(new URL(`${dir}/${file}`, root), "utf8") });
    return loadSources([...shared.map((f) => read("_shared", f)), ...own.map((f) => read(name, f))]).diagnostics;
  };
}

/** A `kind: mcp` manifest (and its lock, when given) under m/, loaded as gen loads it; `sync`: gen's lock step too. */
function mcpCase(manifest: string, lock: string | undefined, sync?: { readonly check: boolean; readonly refresh: boolean }): Produce {
  return async () => {
    const { root, cleanup } = await tempProject({
      "package.json": "{}\n",
      "m/notes.yaml": manifest,
      ...(lock !== undefined && { "m/notes.mcp-lock.json": lock }),
    });
    try {
      const project = await loadProject({ manifestsDir: "m", cwd: root });
      if (sync === undefined) return project.diagnostics;
      return [...project.diagnostics, ...(await syncMcpLocks(project, { root, ...sync })).diagnostics];
    } finally {
      await cleanup();
    }
  };
}
const RPC = "http://127.0.0.1:9/a2a";
const NOTE_TOOL = { name: "add_note", inputSchema: { type: "object", properties: { title: { type: "string" } } } };

const TOOL = "kind: tool\nname: t\ndescription: d\ncapabilities:\n";
const capability = (lines: string) => `${TOOL}  - name: a\n    description: b\n${lines}`;
const AGENT = "kind: agent\nname: g\ndescription: d\ncapabilities: []\n";
const DEPLOYMENT = "kind: deployment\nname: net\ncomponents:\n";
/** A required field `f` with objects nested `levels` deep, as YAML lines under `required:`. */
function nestedField(levels: number): string {
  let yaml = `${" ".repeat(8 + 6 * levels)}- { name: leaf, type: string }\n`;
  for (let level = levels; level >= 1; level--) {
    const indent = " ".repeat(8 + 6 * (level - 1));
    yaml = `${indent}- name: f\n${indent}  type: object\n${indent}  fields:\n${indent}    required:\n${yaml}`;
  }
  return yaml;
}

export const CODE_CORPUS: { readonly [C in DiagnosticCode]: Produce } = {
  MF1001: onDisk(async () => undefined, "nowhere"),
  MF1002: onDisk(async (root) => {
    await mkdir(join(root, "m/notes"));
    await writeFile(join(root, "m/notes/readme.md"), "no manifests here");
  }, "m/notes"),
  MF1003: onDisk((root) => symlink(join(root, "missing.yaml"), join(root, "m/dangling.yaml"))),
  MF1004: onDisk((root) => writeFile(join(root, "m/big.yaml"), `# ${"x".repeat(1024 * 1024 + 10)}\n`)),
  MF1005: onDisk((root) => writeFile(join(root, "m/bad.yaml"), Buffer.from([0x6b, 0x69, 0x6e, 0x64, 0x3a, 0x20, 0xff, 0x0a]))),
  MF1006: text("kind: tool\nname: [unclosed\n"),
  MF1007: text("kind: tool\nkind: tool\n"),
  MF1008: text(`kind: tool\n---\nkind: tool\n`),
  MF1009: text(
    `a: &a [x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n`,
  ),
  MF1010: text("kind: tool\nname: !custom t\n"),
  MF1011: text(`%FOO bar\n---\n${TOOL}  - { name: a, description: b }\n`),
  MF1012: text("# only a comment\n"),
  MF1013: text("- kind: tool\n"),
  MF1014: text("name: t\n"),
  MF1015: text("kind: tol\n"),
  MF1201: text(`${TOOL}  - { name: a, description: b }\ncolour: red\n`),
  MF1202: text("kind: tool\nname: t\ncapabilities: []\n"),
  MF1203: text(`${TOOL}  - { name: a, description: b }\nport: high\n`),
  MF1204: text(capability("    type: toolbox\n")),
  MF1205: text(`kind: tool\nname: Not_A_Label\ndescription: d\ncapabilities: []\n`),
  MF1206: text(`${TOOL}  - { name: a, description: b }\nport: 70000\n`),
  MF1207: text(`${TOOL.replace("capabilities:\n", "capabilities: []\n")}`),
  MF1208: text(`${AGENT}uses: [geocoding-service, geocoding-service]\n`),
  MF1209: text(capability("    input:\n      required:\n        - { name: x, type: string, items: { type: string } }\n")),
  MF1301: files({ "m/a.yaml": GEOCODING_TOOL, "m/b.yaml": GEOCODING_TOOL }),
  MF1302: files({ "m/a.yaml": GEOCODING_TOOL, "m/b.yaml": GEOCODING_TOOL.replace("name: geocoding-service", "name: geocoding-service-") }),
  MF1303: text(`${TOOL}  - { name: a, description: b }\n  - { name: a, description: c }\n`),
  MF1304: text(`${TOOL}  - { name: get_a, description: b }\n  - { name: get__a, description: c }\n`),
  MF1305: text(`${TOOL}  - { name: a, description: b, endpoint: /x }\n  - { name: c, description: d, endpoint: /x }\n`),
  MF1306: text(`${TOOL}  - { name: a, description: b, endpoint: /health }\n`),
  MF1307: text(capability("    input:\n      required: [{ name: x, type: string }]\n      optional: [{ name: x, type: string }]\n")),
  MF1308: text(capability("    input:\n      required: [{ name: x, type: number, example: abc }]\n")),
  MF1309: text(capability("    input:\n      required: [{ name: x, type: number, enum: [1, two] }]\n")),
  MF1310: files({ "m/g.yaml": `${AGENT}uses: [nobody]\n` }),
  MF1311: files({
    "m/geo.yaml": GEOCODING_TOOL,
    "m/g.yaml": `${AGENT}uses: [geocoding-service]\nhitl:\n  sensitive_capabilities: [launch_rockets]\n  default_action: reject\n`,
  }),
  MF1312: files({ "m/g.yaml": `${AGENT}orchestration: { workflows: [missing-flow] }\n` }),
  MF1313: text(`${AGENT}tasks:\n  - { type: a }\n  - { type: a }\n`),
  MF1314: workflowCase("duplicate-step"),
  // No feature has a pending key at present: a feature list with one stands in for the next.
  MF1315: () =>
    notGenerated(loadSources([{ file: "m/g.yaml", text: `${AGENT}hitl: { default_action: reject }\n` }]), [
      { pending: [{ path: ["hitl"], serves: "human-approval checkpoints" }] },
    ]),
  MF1316: text(`${AGENT}tasks:\n  - { type: get_a }\n  - { type: get__a }\n`),
  MF1320: text(capability(`    input:\n      required:\n${nestedField(17)}`)),
  MF1321: text(`${AGENT}tasks:\n  - { type: packing }\ncapabilities:\n  - { name: packing_task, description: d }\n`.replace("capabilities: []\n", "")),
  MF1322: files({ "m/geo.yaml": GEOCODING_TOOL, "m/g.yaml": `${AGENT}uses: [{ name: geocoding-service, planner: [geocode_locaton] }]\n` }),
  MF1317: files({ "m/geo.yaml": GEOCODING_TOOL, "m/deploy.yaml": `${DEPLOYMENT}  geocoding-servce: { entry: dist/geo.js }\n` }),
  MF1318: files({ "m/geo.yaml": GEOCODING_TOOL, "m/deploy.yaml": `${DEPLOYMENT}  geocoding-service: { entry: dist/geo.js, env: { API_KEY: abc } }\n` }),
  MF1319: files({
    "m/geo.yaml": GEOCODING_TOOL,
    "m/a.yaml": `${DEPLOYMENT}  geocoding-service: { entry: dist/geo.js }\n`,
    "m/b.yaml": `${DEPLOYMENT}  geocoding-service: { entry: dist/geo.js }\n`,
  }),
  MF1401: workflowCase("unknown-input"),
  MF1402: workflowCase("unknown-step"),
  MF1403: workflowCase("unknown-component"),
  MF1404: workflowCase("unknown-capability"),
  MF1405: workflowCase("malformed-without-output"),
  MF1406: workflowCase("unknown-field"),
  MF1407: workflowCase("required-input-unbound"),
  MF1408: workflowCase("undeclared-input-key"),
  MF1409: workflowCase("type-mismatch-reference"),
  MF1410: workflowCase("cycle"),
  MF1411: workflowCase("implicit-dependency"),
  MF1412: workflowCase("unused-input"),
  MF1413: workflowCase("unused-step"),
  MF1414: workflowCase("unknown-dependency"),
  MF1415: workflowCase("not-in-uses"),
  MF1416: workflowCase("tool-names-an-agent"),
  MF1417: workflowCase("reserved-name"),
  MF1418: workflowCase("duration-too-long"),
  MF1419: () => loadWorkflowText("m/t.yaml", GEOCODING_TOOL, { component: () => undefined }).diagnostics,
  MF1501: skillCase("[./s/missing]", {}),
  MF1502: skillCase("[./s/a]", { "s/a/README.md": "no SKILL.md here" }),
  MF1503: skillCase("[./s/a]", { "s/a/SKILL.md": "# no front matter\n" }),
  MF1504: skillCase("[./s/a]", { "s/a/SKILL.md": SKILL("name: a") }),
  MF1505: skillCase("[./s/a]", { "s/a/SKILL.md": SKILL("name: b\ndescription: d") }),
  MF1506: skillCase("[./s/a, s/a]", { "s/a/SKILL.md": SKILL("name: a\ndescription: d") }),
  MF1507: skillCase("[./s/a]", { "s/a/SKILL.md": SKILL("name: a\ndescription: d", "See [this](../secret.md).\n") }),
  MF1508: skillCase("[./s/a]", { "s/a/SKILL.md": SKILL("name: a\ndescription: d", "See references/missing.md.\n") }),
  MF1509: skillCase("[./s/a]", { "s/a/SKILL.md": SKILL("name: a\ndescription: d", `${"x".repeat(33 * 1024)}\n`) }),
  MF1601: mcpCase(mcpManifest("url: ftp://example.com/mcp\n"), undefined),
  MF1602: mcpCase(mcpManifest("url: http://127.0.0.1:9/mcp\n"), undefined),
  MF1603: mcpCase(mcpManifest("url: http://127.0.0.1:9/mcp\n"), lockText([NOTE_TOOL]).replace('"title"', '"name"')),
  MF1604: mcpCase(mcpManifest("url: http://127.0.0.1:9/mcp\n"), lockText([NOTE_TOOL, { ...NOTE_TOOL, name: "add-note" }])),
  MF1605: mcpCase(mcpManifest("command: ./no-such-mcp-server\n"), undefined, { check: false, refresh: false }),
  MF1606: mcpCase(mcpManifest(notesStdio()), lockText([NOTE_TOOL]), { check: true, refresh: true }),
  MF1701: a2aCase(a2aManifest("ftp://example.com/card.json"), undefined),
  MF1702: a2aCase(a2aManifest("CARD_URL"), undefined),
  MF1703: a2aCase(a2aManifest("CARD_URL"), a2aLockText(cardJson(RPC, ["a"])).replace('"skill a"', '"edited"')),
  MF1704: a2aCase(a2aManifest("CARD_URL"), a2aLockText(cardJson(RPC, ["get-x", "get_x"]))),
  MF1705: a2aCase(a2aManifest("CARD_URL"), undefined, { check: false, refresh: false, card: { name: "no interface" } }),
  MF1706: a2aCase(a2aManifest("CARD_URL"), a2aLockText(cardJson(RPC, ["a"])), { check: true, refresh: true, card: cardJson(RPC, ["a", "b"]) }),
};
