/**
 * gen never writes through a symbolic link in its output folder (it wrote outside --out before, and
 * --check did not notice): a linked file or folder is replaced by a regular one, what it pointed at is
 * left alone, and --check reports the link.
 */
import { spawnSync } from "node:child_process";
import { lstat, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { GEOCODING_TOOL, tempProject } from "./load-helpers.js";

const bin = new URL("../../generator/bin.ts", import.meta.url).pathname;
const gen = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [...TS_NODE_ARGS, bin, "gen", "--manifests", "m", "--out", "out", ...args], { cwd, encoding: "utf8", timeout: 60_000 });

test("a linked file and a linked folder in the output are reported by --check and replaced by gen; their targets stay as they were", async () => {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL, "outside/victim.ts": "keep me\n", "outside/dir/keep.txt": "keep me too\n" });
  try {
    assert.is(gen(root).status, 0);
    const module = join(root, "out/geocoding-service/index.ts");
    const text = await readFile(module, "utf8");
    // The file becomes a link to a file outside, holding exactly what gen would write (so only the link differs).
    await writeFile(join(root, "outside/victim.ts"), text);
    await (await import("node:fs/promises")).rm(module);
    await symlink(join(root, "outside/victim.ts"), module);
    // A folder becomes a link to a folder outside.
    await (await import("node:fs/promises")).rm(join(root, "out/geocoding-service/schemas"), { recursive: true });
    await symlink(join(root, "outside/dir"), join(root, "out/geocoding-service/schemas"));

    const check = gen(root, "--check");
    assert.is(check.status, 1, check.stderr);
    assert.match(check.stderr, /link +out\/geocoding-service\/index\.ts \(a symbolic link on its path/);
    assert.match(check.stderr, /link +out\/geocoding-service\/schemas\/geocode_locationInput\.json/);

    const write = gen(root);
    assert.is(write.status, 0, write.stderr);
    assert.ok((await lstat(module)).isFile() && !(await lstat(module)).isSymbolicLink());
    assert.ok((await lstat(join(root, "out/geocoding-service/schemas"))).isDirectory());
    assert.is(await readFile(join(root, "outside/victim.ts"), "utf8"), text, "the link's target was not written");
    assert.is(await readFile(join(root, "outside/dir/keep.txt"), "utf8"), "keep me too\n", "nothing removed through the folder link");
    assert.is(gen(root, "--check").status, 0);
  } finally {
    await cleanup();
  }
});

test("an extra link in the output is removed as a link, never through it", async () => {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL, "outside/dir/keep.txt": "keep\n" });
  try {
    assert.is(gen(root).status, 0);
    await mkdir(join(root, "out/stray"), { recursive: true });
    await symlink(join(root, "outside/dir"), join(root, "out/stray/linked"));
    assert.match(gen(root, "--check").stderr, /extra +out\/stray\/linked/);
    assert.is(gen(root).status, 0);
    assert.is(await readFile(join(root, "outside/dir/keep.txt"), "utf8"), "keep\n");
    assert.is(await lstat(join(root, "out/stray/linked")).catch(() => "gone"), "gone");
  } finally {
    await cleanup();
  }
});

test.run();
