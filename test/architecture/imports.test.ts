/**
 * Dependencies point one way: generator/ imports runtime/, never the reverse. The shipped runtime
 * must work without the compiler (a user's server never loads gen), so any import of generator/
 * from runtime/ — static, dynamic or require — fails here, naming the file and the line.
 */
import { join, relative } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { moduleImports, root } from "./module-imports.js";

/** `file:line specifier` for every module specifier of `dir` that resolves into `forbidden`. */
async function importsInto(dir: string, forbidden: string): Promise<string[]> {
  return (await moduleImports(dir))
    .filter(({ target }) => target === forbidden || target.startsWith(`${forbidden}/`))
    .map(({ from, line, specifier }) => `${from}:${line} ${specifier}`);
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
