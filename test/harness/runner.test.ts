/**
 * The gate itself: `npm test`'s runner (test/run.ts) run as a child process on small fixture
 * projects, so each way it must fail is shown failing: a type error in a test file stops the run
 * before any suite, a suite that reports no test is a failure, and a malformed TEST_CONCURRENCY or
 * TEST_SUITE_TIMEOUT_MS is a usage error (exit 2) rather than NaN workers.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";

const repo = new URL("../..", import.meta.url).pathname;
const runner = join(repo, "test/run.ts");

const PASSING = `import { test } from "uvu";\nimport * as assert from "uvu/assert";\ntest("adds", () => assert.is(1 + 1, 2));\ntest.run();\n`;

/** A fixture project: tsconfig, package.json, node_modules linked to ours, and the given test files. */
async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "manifold-runner-"));
  await symlink(join(repo, "node_modules"), join(dir, "node_modules"), "dir");
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: ["node"] },
      include: ["test"],
    }),
  );
  await mkdir(join(dir, "test"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, "test", name), text);
  return dir;
}

function run(dir: string, env: Record<string, string> = {}): { code: number | null; out: string; last: string } {
  const result = spawnSync(process.execPath, [...TS_NODE_ARGS, runner], {
    cwd: dir,
    env: { ...process.env, TEST_ROOT: dir, CI: "true", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  const out = `${result.stdout}${result.stderr}`;
  return { code: result.status, out, last: result.stdout.trim().split("\n").at(-1) ?? "" };
}

const made: string[] = [];
test.after(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

test("a clean fixture passes: typecheck first, then the suite, then `N passed, N failed`", async () => {
  const dir = await project({ "a.test.ts": PASSING });
  made.push(dir);
  const { code, out, last } = run(dir);
  assert.is(code, 0, out);
  assert.match(out, /ok {3}typecheck[\s\S]*ok {3}test\/a\.test\.ts/);
  assert.is(last, "1 passed, 0 failed");
});

test("a type error in a test file fails the run before any suite runs", async () => {
  const dir = await project({ "a.test.ts": PASSING, "b.test.ts": `${PASSING}const wrong: number = "text";\nvoid wrong;\n` });
  made.push(dir);
  const { code, out, last } = run(dir);
  assert.is(code, 1, out);
  assert.match(out, /FAIL typecheck/);
  assert.match(out, /b\.test\.ts.*TS2322/);
  assert.not.match(out, /ok {3}test\/a\.test\.ts/, "no suite ran");
  assert.is(last, "0 passed, 1 failed");
});

test("a suite that reports no tests is a failure", async () => {
  const dir = await project({ "a.test.ts": PASSING, "empty.test.ts": `import { test } from "uvu";\ntest.run();\n` });
  made.push(dir);
  const { code, out, last } = run(dir);
  assert.is(code, 1, out);
  assert.match(out, /empty\.test\.ts reported no tests/);
  assert.is(last, "1 passed, 1 failed");
});

test("a malformed TEST_CONCURRENCY or TEST_SUITE_TIMEOUT_MS is a usage error naming the variable", async () => {
  const dir = await project({ "a.test.ts": PASSING });
  made.push(dir);
  for (const [name, value] of [
    ["TEST_CONCURRENCY", "abc"],
    ["TEST_CONCURRENCY", "0"],
    ["TEST_CONCURRENCY", "2.5"],
    ["TEST_SUITE_TIMEOUT_MS", "-1"],
    ["TEST_SUITE_TIMEOUT_MS", "1e9x"],
  ] as const) {
    const { code, out } = run(dir, { [name]: value });
    assert.is(code, 2, `${name}=${value}: ${out}`);
    assert.match(out, new RegExp(`${name} must be a whole number`));
  }
});

test.run();
