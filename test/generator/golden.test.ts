/**
 * The committed generated/ folder is exactly what the manifests produce (the in-process twin of
 * `manifold gen --check`, which CI also runs), and the CLI's --check notices any edit.
 */
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { emitProject } from "../../generator/emit/index.js";
import { loadProject } from "../../generator/load-project.js";
import { compareFolder } from "../../generator/output-folder.js";
import { formatTypeScript } from "../support/format-typescript.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";

const root = new URL("../..", import.meta.url).pathname;

function cli(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [...TS_NODE_ARGS, join(root, "generator/bin.ts"), ...args], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every committed manifests → generated pair; `npm run gen` writes each. */
const PAIRS = [
  ["manifests", "generated"],
  ["test/fixtures/manifests", "test/fixtures/generated"],
] as const;

for (const [manifestsDir, outDir] of PAIRS) {
  test(`${outDir}/ equals a fresh gen of ${manifestsDir}/`, async () => {
    const project = await loadProject({ manifestsDir, cwd: root });
    assert.equal(project.diagnostics, []);
    const files = emitProject(project, { manifestsDir });
    const drift = await compareFolder(join(root, outDir), files);
    assert.equal(drift, { stale: [], missing: [], extra: [] });
  });
}

test("every generated module parses and is already formatted as the TypeScript formatter would", async () => {
  const project = await loadProject({ manifestsDir: "manifests", cwd: root });
  const modules = new Map([...emitProject(project, { manifestsDir: "manifests" })].filter(([path]) => path.endsWith(".ts")));
  assert.ok(modules.size >= 4);
  const formatted = await formatTypeScript(modules);
  for (const [path, text] of modules) assert.fixture(formatted.get(path)!, text, path);
});

/** Every file under `dir`, path → bytes. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return new Map(await Promise.all(files.map(async (f) => [relative(dir, f), await readFile(f, "latin1")] as const)));
}

test("gen is deterministic: two gen processes, each loading from disk, write the same bytes", async () => {
  const out = await mkdtemp(join(tmpdir(), "manifold-determinism-"));
  try {
    const runs = await Promise.all(
      ["a", "b"].map(async (name) => {
        const result = cli(root, "gen", "--out", join(out, name));
        assert.is(result.code, 0, result.stderr);
        return snapshot(join(out, name));
      }),
    );
    assert.ok(runs[0]!.size >= 20, `wrote ${runs[0]!.size} files`);
    assert.equal([...runs[0]!].sort(), [...runs[1]!].sort());
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

test("gen --check fails naming the file after an edit to a manifest, a generated file, or an extra file", async () => {
  const dir = await mkdtemp(join(tmpdir(), "manifold-check-"));
  try {
    await cp(join(root, "manifests"), join(dir, "manifests"), { recursive: true });
    await cp(join(root, "generated"), join(dir, "generated"), { recursive: true });
    const clean = cli(dir, "gen", "--check");
    assert.is(clean.code, 0, clean.stderr);
    assert.match(clean.stdout, /up to date/);

    const generatedFile = join(dir, "generated/weather-service/openapi.json");
    const original = await readFile(generatedFile, "utf8");
    await writeFile(generatedFile, original.replace('"3.0.0"', '"3.0.1"'));
    const stale = cli(dir, "gen", "--check");
    assert.is(stale.code, 1);
    assert.match(stale.stderr, /stale +generated\/weather-service\/openapi\.json/);
    await writeFile(generatedFile, original);

    const manifest = join(dir, "manifests/travel/currency-service.yaml");
    const yaml = await readFile(manifest, "utf8");
    await writeFile(manifest, yaml.replace("Convert an amount between two currencies", "Convert money"));
    const edited = cli(dir, "gen", "--check");
    assert.is(edited.code, 1);
    assert.match(edited.stderr, /stale +generated\/currency-service\/index\.ts/);
    assert.match(edited.stderr, /stale +generated\/currency-service\/openapi\.json/);
    await writeFile(manifest, yaml);

    await writeFile(join(dir, "generated/weather-service/notes.txt"), "mine");
    const extra = cli(dir, "gen", "--check");
    assert.is(extra.code, 1);
    assert.match(extra.stderr, /extra +generated\/weather-service\/notes\.txt/);

    // gen itself repairs all of it, and reports what it did.
    const gen = cli(dir, "gen");
    assert.is(gen.code, 0, gen.stderr);
    assert.match(gen.stdout, /0 written, \d+ unchanged, 1 removed/);
    assert.is(cli(dir, "gen", "--check").code, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("gen refuses to prune a folder it did not create", async () => {
  const dir = await mkdtemp(join(tmpdir(), "manifold-own-"));
  try {
    await cp(join(root, "manifests"), join(dir, "manifests"), { recursive: true });
    await writeFile(join(dir, "precious.ts"), "export {};\n");
    const result = cli(dir, "gen", "--out", ".");
    assert.is(result.code, 2);
    assert.match(result.stderr, /did not write/);
    assert.is(await readFile(join(dir, "precious.ts"), "utf8"), "export {};\n");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
