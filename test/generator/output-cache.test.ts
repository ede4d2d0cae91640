/**
 * gen's content-hash cache (.manifold-cache/ in the output folder): after one manifest changed, gen
 * rewrites only the files whose content changed and reads none of the others, and the folder equals a
 * cold gen's byte for byte; --check still reports a hand edit the cache knows nothing of; a corrupt
 * cache means every file is read again; the cache is never written through a link.
 */
import { lstat, mkdir, readFile, readdir, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { main } from "../../generator/cli.js";
import { syncFolder } from "../../generator/output-folder.js";
import { GEOCODING_TOOL, WEATHER_TOOL, tempProject } from "./load-helpers.js";

async function gen(root: string, out: string, ...extra: string[]): Promise<{ code: number; out: string; err: string }> {
  const [o, e]: [string[], string[]] = [[], []];
  const io = { out: (t: string) => o.push(t), err: (t: string) => e.push(t), color: false };
  const code = await main(["gen", "--manifests", join(root, "m"), "--out", join(root, out), ...extra], io);
  return { code, out: o.join(""), err: e.join("") };
}

/** Every file under `dir`: path → bytes, and path → inode and mtime (what a rewrite changes). */
async function snapshot(dir: string): Promise<{ bytes: Map<string, string>; stamps: Map<string, string> }> {
  const entries = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  const bytes = new Map<string, string>();
  const stamps = new Map<string, string>();
  for (const e of entries) {
    const path = join(e.parentPath, e.name);
    const key = relative(dir, path);
    bytes.set(key, await readFile(path, "latin1"));
    const info = await stat(path);
    stamps.set(key, `${info.ino}:${info.mtimeMs}`);
  }
  return { bytes, stamps };
}

const sorted = (m: Map<string, string>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
const tick = () => new Promise((r) => setTimeout(r, 20));

test("after one manifest changed, gen rewrites only that component's changed files (and the cache) and equals a cold gen", async () => {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL, "m/weather.yaml": WEATHER_TOOL });
  try {
    assert.is((await gen(root, "out")).code, 0);
    const before = await snapshot(join(root, "out"));
    assert.ok(before.bytes.has(".manifold-cache/files.json"), "the cache is in the output folder");
    await tick(); // a rewrite must show in the mtime even on a coarse clock
    const weather = join(root, "m/weather.yaml");
    await writeFile(weather, (await readFile(weather, "utf8")).replace(/^description: .*$/m, "description: Changed"));
    const warm = await gen(root, "out");
    assert.is(warm.code, 0, warm.err);
    const after = await snapshot(join(root, "out"));
    const rewritten = [...after.stamps].filter(([p, s]) => before.stamps.get(p) !== s).map(([p]) => p);
    const changed = [...after.bytes].filter(([p, b]) => before.bytes.get(p) !== b).map(([p]) => p);
    assert.ok(
      changed.some((p) => p.startsWith("weather-service/")),
      `changed: ${changed}`,
    );
    assert.equal(rewritten.sort(), changed.sort(), "exactly the files whose bytes changed were rewritten");
    for (const p of rewritten) assert.ok(p.startsWith("weather-service/") || p.startsWith(".manifold-cache/"), `${p} does not depend on weather.yaml`);
    assert.is((await gen(root, "cold")).code, 0);
    assert.equal(sorted(after.bytes), sorted((await snapshot(join(root, "cold"))).bytes), "warm gen = cold gen, byte for byte");
  } finally {
    await cleanup();
  }
});

test("with a current cache, an unchanged file is not read; a changed one is written", async () => {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL });
  try {
    const out = join(root, "out");
    const expected = new Map([
      ["a.txt", "one\n"],
      ["b/c.txt", "two\n"],
    ]);
    assert.is((await syncFolder(out, expected)).written, 2);
    // Written before the cache (not in the same tick of a coarse file-system clock, which is read again).
    const past = new Date(Date.now() - 60_000);
    for (const p of ["a.txt", "b/c.txt"]) await utimes(join(out, p), past, past);
    const warm = await syncFolder(out, new Map([...expected, ["b/c.txt", "three\n"]]));
    assert.is(warm.written, 1);
    assert.is(warm.read, 0, "the cache vouched for a.txt");
    assert.is(await readFile(join(out, "b/c.txt"), "utf8"), "three\n");
  } finally {
    await cleanup();
  }
});

test("--check reports a hand edit with the cache present, even one that keeps the size and the old mtime; gen repairs an ordinary edit", async () => {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL });
  try {
    assert.is((await gen(root, "out")).code, 0);
    assert.is((await gen(root, "out", "--check")).code, 0, "the cache is not an extra file");
    const file = join(root, "out/geocoding-service/openapi.json");
    const original = await readFile(file, "utf8");
    const { atime, mtime } = await stat(file);
    await writeFile(file, original.replace('"3.0.0"', '"3.0.1"'));
    await utimes(file, atime, mtime);
    const check = await gen(root, "out", "--check");
    assert.is(check.code, 1);
    assert.match(check.err, /stale +\S*out\/geocoding-service\/openapi\.json/);
    await tick();
    await writeFile(file, original.replace('"3.0.0"', '"3.0.2"'));
    assert.is((await gen(root, "out")).code, 0);
    assert.is(await readFile(file, "utf8"), original);
  } finally {
    await cleanup();
  }
});

test("a corrupt cache is ignored: every file is read again, and a stale one is rewritten", async () => {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL });
  try {
    assert.is((await gen(root, "out")).code, 0);
    const file = join(root, "out/geocoding-service/openapi.json");
    const original = await readFile(file, "utf8");
    const { atime, mtime } = await stat(file);
    // An edit the cache cannot see (same size, old mtime): only reading the file finds it.
    await writeFile(file, original.replace('"3.0.0"', '"3.0.1"'));
    await utimes(file, atime, mtime);
    await writeFile(join(root, "out/.manifold-cache/files.json"), "{ not json");
    const result = await gen(root, "out");
    assert.is(result.code, 0, result.err);
    assert.match(result.out, /1 written/);
    assert.is(await readFile(file, "utf8"), original);
    assert.ok(JSON.parse(await readFile(join(root, "out/.manifold-cache/files.json"), "utf8")).files, "the cache is written anew");
  } finally {
    await cleanup();
  }
});

test("the cache is never written through a link: a linked .manifold-cache is replaced, its target left alone", async () => {
  const { root, cleanup } = await tempProject({ "m/geo.yaml": GEOCODING_TOOL, "outside/keep.txt": "keep\n" });
  try {
    assert.is((await gen(root, "out")).code, 0);
    await rm(join(root, "out/.manifold-cache"), { recursive: true });
    await symlink(join(root, "outside"), join(root, "out/.manifold-cache"));
    assert.is((await gen(root, "out")).code, 0);
    assert.ok((await lstat(join(root, "out/.manifold-cache"))).isDirectory());
    assert.equal((await readdir(join(root, "outside"))).sort(), ["keep.txt"]);
    await mkdir(join(root, "outside/x"), { recursive: true });
  } finally {
    await cleanup();
  }
});

test.run();
