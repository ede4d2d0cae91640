/**
 * The bin refuses to run a dist/ older than the sources of its own checkout, naming a newer file: an
 * old build checked today's manifests by old rules and reported MF1015 for `kind: deployment`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { staleBuildSource } from "../../generator/stale-build.js";
import { tempProject } from "./load-helpers.js";

const HOUR = 3_600;
const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);

test("a source or the schema newer than dist/generator/bin.js is named; an older one, or no sources, is not", async () => {
  const { root, cleanup } = await tempProject({
    "dist/generator/bin.js": "",
    "generator/bin.ts": "",
    "runtime/manifest/kind.ts": "",
    "runtime/scheduling/scheduler.yaml": "",
    "manifest.schema.json": "{}",
  });
  try {
    const bin = join(root, "dist/generator/bin.js");
    const now = Math.floor(Date.now() / 1000);
    for (const file of ["generator/bin.ts", "runtime/manifest/kind.ts", "runtime/scheduling/scheduler.yaml", "manifest.schema.json"])
      at(join(root, file), now - 2 * HOUR);
    at(bin, now - HOUR);
    assert.is(staleBuildSource(bin), undefined, "built after every source");
    at(join(root, "runtime/scheduling/scheduler.yaml"), now);
    assert.is(staleBuildSource(bin), undefined, "files read at run time are not compiled into dist/");
    at(join(root, "runtime/manifest/kind.ts"), now);
    assert.is(staleBuildSource(bin), "runtime/manifest/kind.ts");
    at(join(root, "runtime/manifest/kind.ts"), now - 2 * HOUR);
    at(join(root, "manifest.schema.json"), now);
    assert.is(staleBuildSource(bin), "manifest.schema.json");
    assert.is(staleBuildSource(join(root, "generator/bin.ts")), undefined, "the sources themselves never are");
  } finally {
    await cleanup();
  }
});

test("an installed package (dist/ without generator/ sources) is never called stale", async () => {
  const { root, cleanup } = await tempProject({ "dist/generator/bin.js": "", "runtime/manifest/kind.ts": "" });
  try {
    at(join(root, "dist/generator/bin.js"), 1_000);
    assert.is(staleBuildSource(join(root, "dist/generator/bin.js")), undefined);
  } finally {
    await cleanup();
  }
});

test("the real bin, built before a source changed, exits 2 naming the file and checks nothing; --help and --version still answer", async () => {
  const root = new URL("../..", import.meta.url).pathname;
  const { root: copy, cleanup } = await tempProject({});
  try {
    for (const part of ["dist", "generator", "runtime", "manifest.schema.json", "package.json"])
      cpSync(join(root, part), join(copy, part), { recursive: true, preserveTimestamps: true });
    symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
    // Built after every source as copied (whatever state this checkout's dist/ is in), then one source changes.
    const now = Math.floor(Date.now() / 1000);
    at(join(copy, "dist/generator/bin.js"), now + HOUR);
    at(join(copy, "runtime/manifest/kind.ts"), now + 2 * HOUR);
    const result = spawnSync(process.execPath, [join(copy, "dist/generator/bin.js"), "gen", "--check"], { cwd: copy, encoding: "utf8", timeout: 30_000 });
    assert.is(result.status, 2);
    assert.match(result.stderr, /^manifold: dist\/ is older than runtime\/manifest\/kind\.ts: .*Run `npm run build`/);
    // Help and version judge nothing: they answer from the same stale build, without the scan.
    for (const args of [["--help"], ["gen", "--help"], ["--version"], []]) {
      const printed = spawnSync(process.execPath, [join(copy, "dist/generator/bin.js"), ...args], { cwd: copy, encoding: "utf8", timeout: 30_000 });
      assert.is(printed.stderr.includes("older than"), false, args.join(" "));
      assert.match(printed.stdout, args[0] === "--version" ? /^\d+\.\d+\.\d+\n$/ : /^(manifold v|Usage: manifold gen)/, args.join(" "));
    }
  } finally {
    await cleanup();
  }
});

test.run();
