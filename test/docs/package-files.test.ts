/**
 * What the published package holds, read from `npm pack --dry-run` (no build, no network): every
 * `source` export condition points at a file that ships, and every document the README links to or
 * names (docs/, the runtime folders' READMEs) ships too; no README link leaves the repository.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";

const root = new URL("../..", import.meta.url).pathname;

function packedFiles(): Set<string> {
  const result = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", timeout: 60_000 });
  assert.is(result.status, 0, result.stderr);
  const [pack] = JSON.parse(result.stdout) as { files: { path: string }[] }[];
  return new Set(pack!.files.map((f) => f.path));
}

const packed = packedFiles();
const ships = (path: string): boolean => packed.has(path) || [...packed].some((p) => p.startsWith(`${path.replace(/\/$/, "")}/`));

test("every `source` export condition points at a file the package ships", () => {
  const { exports } = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { exports: Record<string, string | Record<string, string>> };
  const sources = Object.values(exports).flatMap((entry) => (typeof entry === "object" && entry["source"] !== undefined ? [entry["source"]] : []));
  assert.ok(sources.length > 5, `found ${sources.length} source conditions`);
  const missing = sources.map((s) => s.replace(/^\.\//, "")).filter((s) => !packed.has(s));
  assert.equal(missing, []);
});

test("every document the README links to or names ships; no link leaves the repository", () => {
  // A fenced block is an example (a SKILL.md's own relative link), not a link of the README's.
  const readme = readFileSync(`${root}README.md`, "utf8").replace(/^```[^\n]*\n[\s\S]*?^```/gm, "");
  const links = [...readme.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));
  const named = [...readme.matchAll(/`((?:docs|runtime)\/[\w./-]+\.md)`/g)].map((m) => m[1]!);
  assert.ok(links.length + named.length >= 5, "the README names its documents");
  assert.equal(
    links.filter((target) => target.startsWith("../") || target.startsWith("/")),
    [],
    "links stay inside the repository",
  );
  // Paths named in the text, not only links: a reader of the published README has no folder above the package.
  // The `$schema` lines a user writes are the exception: they are relative to the user's manifests folder.
  const outside = [...readme.matchAll(/(?:\.\.\/)+[\w./-]+/g)].map((m) => m[0]).filter((path) => !path.endsWith("manifest.schema.json"));
  assert.equal(outside, [], "no path in the README leaves the repository");
  assert.equal(
    [...new Set([...links, ...named])].filter((target) => !ships(target)),
    [],
  );
});

test.run();
