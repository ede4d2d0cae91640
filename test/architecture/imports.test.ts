/**
 * Dependencies point one way: generator/ imports runtime/, never the reverse. The shipped runtime
 * must work without the compiler (a user's server never loads gen), so any import of generator/
 * from runtime/ — static, dynamic or require — fails here, naming the file and the line.
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

const root = new URL("../..", import.meta.url).pathname;
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["'`]([^"'`]+)["'`]/g;

/** `file:line specifier` for every module specifier of `dir` that resolves into `forbidden`. */
export async function importsInto(dir: string, forbidden: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !/\.(ts|js|mjs|cjs)$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    const lines = (await readFile(path, "utf8")).split("\n");
    lines.forEach((line, i) => {
      for (const match of line.matchAll(SPECIFIER)) {
        const specifier = match[1]!;
        const target = specifier.startsWith(".") ? relative(root, resolve(entry.parentPath, specifier)) : specifier;
        if (target === forbidden || target.startsWith(`${forbidden}/`)) found.push(`${relative(root, path)}:${i + 1} ${specifier}`);
      }
    });
  }
  return found;
}

test("nothing under runtime/ imports generator/", async () => {
  assert.equal(await importsInto("runtime", "generator"), []);
});

test("the check finds such an import: static, dynamic and require forms", async () => {
  const { mkdtemp, mkdir, writeFile, rm } = await import("node:fs/promises");
  const dir = await mkdtemp(join(root, "test/architecture/.tmp-"));
  try {
    await mkdir(join(dir, "sub"));
    await writeFile(
      join(dir, "sub/a.ts"),
      'import { x } from "../../../../generator/cli.js";\nconst y = await import("../../../../generator/load-project.js");\nconst z = require("../../../../generator");\n',
    );
    const found = await importsInto(relative(root, dir), "generator");
    assert.is(found.length, 3, found.join("\n"));
    assert.match(found[0]!, /sub\/a\.ts:1 /);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
