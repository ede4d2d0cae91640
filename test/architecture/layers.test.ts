/**
 * The layering, checked. runtime/ reads bottom-up: errors/util/spec → context/store → telemetry →
 * discovery/outbound/llm/mcp → component → manifest (the format) → feature (the seam) → the features →
 * agent (the composition root) → codegen → dashboard; generator/ sits on top. A folder imports only
 * its own layer or lower ones, a runtime folder reaches another through its index.ts (the agent's
 * feature list also reads each feature's descriptor, feature.ts), and there is no import cycle at all:
 * madge over runtime/ and generator/, type-only imports included, finds none.
 */
import { spawnSync } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join, sep } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { moduleImports, root } from "./module-imports.js";

/** Each runtime folder's layer; a new folder must be placed here before it can import or be imported. */
const LAYERS: Readonly<Record<string, number>> = {
  errors: 0,
  util: 0,
  spec: 0,
  context: 1,
  store: 1,
  telemetry: 2,
  discovery: 3,
  outbound: 3,
  llm: 3,
  mcp: 3,
  "a2a-client": 3,
  component: 4,
  manifest: 5,
  feature: 6,
  tasks: 7,
  orchestration: 7,
  scheduling: 7,
  chat: 7,
  hitl: 7,
  skills: 7,
  memory: 7,
  a2a: 7,
  agent: 8,
  codegen: 9,
  dashboard: 10,
};

// Read once: the relative imports of runtime/, for both checks below.
const edges = moduleImports("runtime").then((all) => all.filter(({ specifier }) => specifier.startsWith(".")));

/** `runtime/<folder>/…` → folder; the root barrel and files at runtime/ level → undefined. */
function folderOf(path: string): string | undefined {
  const parts = path.split(sep);
  return parts[0] === "runtime" && parts.length > 2 ? parts[1] : undefined;
}

test("every runtime folder has a layer", async () => {
  const folders = (await readdir(join(root, "runtime"), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.equal(
    folders.filter((f) => !(f in LAYERS)),
    [],
    "place the new folder in LAYERS",
  );
});

test("a runtime folder imports only its own layer or lower ones", async () => {
  const upward = (await edges).flatMap(({ from, line, target }) => {
    const [own, other] = [folderOf(from), folderOf(target)];
    if (own === undefined || other === undefined || own === other) return [];
    return LAYERS[other]! > LAYERS[own]! ? [`${from}:${line} imports ${target} (layer ${LAYERS[other]} above ${own}'s ${LAYERS[own]})`] : [];
  });
  assert.equal(upward, []);
});

test("a runtime folder reaches another through its index.ts (the feature list also through each feature.ts)", async () => {
  const allowed = (from: string, target: string): boolean => {
    const rest = target.split(sep).slice(2).join("/");
    // Sub-libraries with a barrel of their own: the manifest's data-flow checks, memory's retrieval (skills rank with it too).
    if (rest === "index.js" || rest === "dataflow/index.js" || rest === "retrieval/index.js") return true;
    // Light barrels for what a served agent's features call: the manifest's (no validator, no ajv) and
    // orchestration's (no natural plan check, which loads with the first plan).
    if (rest === "served.js" && (target.startsWith(join("runtime", "manifest") + sep) || target.startsWith(join("runtime", "orchestration") + sep)))
      return true;
    // codegen/v1, which every generated module loads, takes the typed clients from their own light modules:
    // through the folders' indexes a plain tool loaded the agent, orchestration, tasks, MCP and A2A runtimes.
    if (from.startsWith(join("runtime", "codegen") + sep) && (rest === "client.js" || rest === "clients.js")) return true;
    return from === join("runtime", "agent", "features.ts") && rest === "feature.js";
  };
  const bypassing = (await edges).flatMap(({ from, line, target }) => {
    const [own, other] = [folderOf(from), folderOf(target)];
    if (own === undefined || other === undefined || own === other || allowed(from, target)) return [];
    return [`${from}:${line} imports ${target}`];
  });
  assert.equal(bypassing, []);
});

function madge(...paths: string[]): { cycles: string[][]; output: string } {
  const bin = join(root, "node_modules", ".bin", "madge");
  const run = spawnSync(bin, ["--circular", "--extensions", "ts", "--json", "--no-spinner", ...paths], { cwd: root, encoding: "utf8" });
  const output = `${run.stdout}${run.stderr}`;
  const start = run.stdout.indexOf("[");
  assert.ok(start >= 0, `madge printed no JSON:\n${output}`);
  return { cycles: JSON.parse(run.stdout.slice(start)) as string[][], output };
}

test("madge finds no import cycle in runtime/ and generator/ (type-only imports included)", () => {
  const { cycles } = madge("runtime", "generator");
  assert.equal(
    cycles.map((cycle) => cycle.join(" > ")),
    [],
  );
});

test("the cycle check fails on a cycle: the fixture's two files import each other's types", () => {
  const { cycles, output } = madge("test/fixtures/import-cycle");
  assert.equal(cycles, [["a.ts", "b.ts"]], output);
});

test.run();
