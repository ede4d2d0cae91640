/**
 * Size limits that keep the runtime readable: no function over 80 lines (measured from its first to
 * its last line, nested functions included, so a factory that closes over a dozen methods counts
 * whole) and no file over 400 lines, in runtime/ and generator/. A hub that grows past them is split
 * into named functions with their own tests, not waved through.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { Node, Project } from "ts-morph";
import { test } from "uvu";
import * as assert from "uvu/assert";

const root = new URL("../..", import.meta.url).pathname;
const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 400;

async function sources(...dirs: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const dir of dirs) {
    for (const entry of await readdir(join(root, dir), { recursive: true, withFileTypes: true }))
      if (entry.isFile() && entry.name.endsWith(".ts")) found.push(join(entry.parentPath, entry.name));
  }
  return found.sort();
}

/** `file:line name (N lines)` for every function-like node of the files longer than `max` lines. */
function longFunctions(files: readonly string[], max = MAX_FUNCTION_LINES): string[] {
  const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
  const found: string[] = [];
  for (const file of project.addSourceFilesAtPaths([...files])) {
    file.forEachDescendant((node) => {
      if (!Node.isFunctionLikeDeclaration(node)) return;
      const lines = node.getEndLineNumber() - node.getStartLineNumber() + 1;
      if (lines <= max) return;
      const name =
        Node.isArrowFunction(node) || Node.isFunctionExpression(node)
          ? (node.getParent()?.getSymbol()?.getName() ?? "(anonymous)")
          : node.getSymbol()?.getName();
      found.push(`${relative(root, file.getFilePath())}:${node.getStartLineNumber()} ${name ?? "(anonymous)"} (${lines} lines)`);
    });
  }
  return found;
}

// Listed once, for both limits.
const files = sources("runtime", "generator");

test(`no function in runtime/ or generator/ is longer than ${MAX_FUNCTION_LINES} lines`, async () => {
  assert.equal(longFunctions(await files), []);
});

test(`no file in runtime/ or generator/ is longer than ${MAX_FILE_LINES} lines`, async () => {
  const long: string[] = [];
  for (const file of await files) {
    const lines = (await readFile(file, "utf8")).split("\n").length - 1;
    if (lines > MAX_FILE_LINES) long.push(`${relative(root, file)} (${lines} lines)`);
  }
  assert.equal(long, []);
});

test("the measure counts nested functions with the function around them", async () => {
  const dir = await mkdtemp(join(root, "test/architecture/.tmp-size-"));
  try {
    const body = Array.from({ length: 50 }, (_, i) => `    const v${i} = ${i};`).join("\n");
    // Two inner methods of 52 lines each: neither is too long, the factory around them (108 lines) is.
    const text = `export function createHub() {\n  return {\n    a() {\n${body}\n    },\n    b() {\n${body}\n    },\n  };\n}\n`;
    await writeFile(join(dir, "hub.ts"), text);
    const found = longFunctions([join(dir, "hub.ts")]);
    assert.is(found.length, 1, found.join("\n"));
    assert.match(found[0]!, /hub\.ts:1 createHub \(108 lines\)/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
