/**
 * The gate itself: `npm test`'s runner (test/run.ts) run as a child process on small fixture
 * projects, so each way it must fail is shown failing: a type error in a test file stops the run
 * before any suite, a suite that reports no test is a failure, and a malformed TEST_CONCURRENCY or
 * TEST_SUITE_TIMEOUT_MS is a usage error (exit 2) rather than NaN workers. A failing suite says why:
 * the failing hook's or assertion's message, or, for a suite that hangs or dies early, the test that
 * was running and the end of its output (the suites are in test/fixtures/runner).
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
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

/** A suite from test/fixtures/runner, as a fixture project's test file. */
const fixture = (name: string): Promise<string> => readFile(join(repo, "test/fixtures/runner", name), "utf8");

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

/** One run over the failing fixture suites, shared by the tests below (each run typechecks a project). */
let failing: Promise<{ code: number | null; out: string; last: string }> | undefined;
function failingRun(): Promise<{ code: number | null; out: string; last: string }> {
  failing ??= (async () => {
    const dir = await project({
      "hook.test.ts": await fixture("before-hook-fails.ts"),
      "assertion.test.ts": await fixture("assertion-fails.ts"),
      "hangs.test.ts": await fixture("hangs.ts"),
      "rejection.test.ts": await fixture("rejection-escapes.ts"),
    });
    made.push(dir);
    // The hanging suite is killed at this limit; long enough for the others to start on a loaded machine.
    return run(dir, { TEST_SUITE_TIMEOUT_MS: "10000", TEST_CONCURRENCY: "4" });
  })();
  return failing;
}

/** The runner's report of one suite: from its FAIL line to the next suite's line. */
function reportOf(out: string, file: string): string {
  const at = out.indexOf(`FAIL test/${file}`);
  assert.ok(at >= 0, `a FAIL line for ${file}:\n${out}`);
  const next = out.slice(at + 1).search(/^(?:FAIL|ok {3})\s/m);
  return next < 0 ? out.slice(at) : out.slice(at, at + 1 + next);
}

test("a suite whose before hook throws reports the hook's error and stack, and its tests as failed", async () => {
  const { code, out, last } = await failingRun();
  assert.is(code, 1, out);
  const report = reportOf(out, "hook.test.ts");
  assert.match(report, /^FAIL test\/hook\.test\.ts \(0 passed, 3 failed/);
  assert.match(report, /reason: first failure: "before hook \(so none of the 3 tests ran\)": fixture server refused the connection \(port 1\)/);
  assert.match(report, /at connectToFixture \(.*hook\.test\.ts:\d+:\d+\)/, "the hook's stack");
  assert.match(last, /^1 passed, \d+ failed$/);
});

test("a failing assertion is named with its test, its message and where it is", async () => {
  const report = reportOf((await failingRun()).out, "assertion.test.ts");
  assert.match(report, /^FAIL test\/assertion\.test\.ts \(1 passed, 1 failed/);
  assert.match(report, /reason: first failure: "the weather is sunny": Kyoto's condition.*\n\s+at .*assertion\.test\.ts:\d+:\d+/);
  assert.match(report, /\+\+ ?sunny\s+\(Expected\)/, "uvu's diff is in the output");
});

test("a suite killed for hanging names the test that was running and ends with its last output", async () => {
  const report = reportOf((await failingRun()).out, "hangs.test.ts");
  assert.match(report, /reason: killed after 10 s \(the suite timeout, TEST_SUITE_TIMEOUT_MS\); "waits for a reply that never comes" was running/);
  assert.match(report, /sent the request to the fixture/);
});

test("a rejection nobody awaited ends the suite early: the error and the running test are printed", async () => {
  const report = reportOf((await failingRun()).out, "rejection.test.ts");
  assert.match(report, /reason: exited with code 1 without uvu's summary; "fires and forgets" was running/);
  assert.match(report, /Error: the store was closed under the write/);
  assert.match(report, /at .*rejection\.test\.ts:\d+/, "its stack");
});

test.run();
