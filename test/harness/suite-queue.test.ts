/**
 * uvu starts running its queue on a timer once the first suite calls `run()`; a suite queued after a
 * top-level `await` that comes later in the file misses that run (or runs twice), and npm test then
 * reports fewer tests than the file holds, silently. Every suite file keeps its top-level awaits
 * before its first `run()`.
 */
import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * `line: text` of each top-level await after the file's first `run()` (at any depth: a suite built by
 * a helper function queues itself when the helper is called, and the helper is written before its calls).
 */
export function awaitsAfterFirstRun(source: string): string[] {
  const lines = source.split("\n");
  const first = lines.findIndex((line) => /\.run\(\);/.test(line));
  if (first === -1) return [];
  return lines.flatMap((line, index) =>
    index > first && /^(?:(?:export )?(?:const|let|var) [^=]+= )?await\b/.test(line) ? [`${index + 1}: ${line.trim()}`] : [],
  );
}

test("the check finds a top-level await after the first run(), and nothing before it or inside a function", () => {
  const late = ['suite("a").run();', "const server = await startRedisServer();", "await sleep(1);"].join("\n");
  assert.equal(awaitsAfterFirstRun(late), ["2: const server = await startRedisServer();", "3: await sleep(1);"]);
  const early = ["const server = await startRedisServer();", "test.run();", "async function f() {", "  await g();", "}"].join("\n");
  const helper = [
    "function cases() {",
    "  const test = suite();",
    "  test.run();",
    "}",
    "cases();",
    "const cluster = await startRedisCluster();",
    "cases();",
  ].join("\n");
  assert.equal(awaitsAfterFirstRun(helper), ["6: const cluster = await startRedisCluster();"]);
  assert.equal(awaitsAfterFirstRun(early), []);
});

test("no suite file awaits at top level after its first run()", async () => {
  const entries = await readdir(join(root, "test"), { recursive: true, withFileTypes: true });
  const suites = entries.filter((e) => e.isFile() && e.name.endsWith(".test.ts")).map((e) => join(e.parentPath, e.name));
  assert.ok(suites.length > 100, `found the suites (${suites.length})`);
  const late = suites.flatMap((file) => awaitsAfterFirstRun(readFileSync(file, "utf8")).map((at) => `${relative(root, file)}:${at}`));
  assert.equal(late, []);
});

test.run();
