/**
 * The `manifold` command as users run it: exit codes, usage errors, and the installed bin (the one
 * `npx manifold` finds), which must run whatever path it is reached through.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { MANIFOLD_VERSION } from "../../runtime/manifest/version.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";

const root = new URL("../..", import.meta.url).pathname;

function run(args: string[], cwd = root) {
  const r = spawnSync(process.execPath, [...TS_NODE_ARGS, join(root, "generator/bin.ts"), ...args], { cwd, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test("the installed bin (node_modules/.bin/manifold, a symlink) runs the CLI", () => {
  const r = spawnSync(join(root, "node_modules/.bin/manifold"), ["--version"], { cwd: root, encoding: "utf8", timeout: 30_000 });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout.trim(), MANIFOLD_VERSION);
});

test("usage errors exit 2 with one line of advice and no stack", () => {
  for (const args of [["frobnicate"], ["gen", "--bogus"], ["validate", "--format", "xml"], ["validate", "--check"], ["gen", "extra"], []]) {
    const r = run(args);
    assert.is(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.not.match(r.err, /\n\s+at /, "no stack trace");
  }
  assert.match(run(["gen", "--bogus"]).err, /^manifold: unknown option --bogus\nRun manifold --help for usage\.\n$/);
});

test("--help and --version exit 0", () => {
  const help = run(["--help"]);
  assert.is(help.code, 0);
  assert.match(help.out, /manifold gen \[--manifests DIR\] \[--out DIR\] \[--check\]/);
  assert.is(run(["--version"]).out.trim(), MANIFOLD_VERSION);
});

test("validate: exit 0 and a summary on the example network; exit 1 with positioned diagnostics on a broken one", async () => {
  const ok = run(["validate"]);
  assert.is(ok.code, 0, ok.err);
  assert.match(ok.out, /^manifold: 7 manifests \+ shipped scheduler valid in \d+ ms\n$/);
  const dir = await mkdtemp(join(tmpdir(), "manifold-cli-"));
  try {
    await mkdir(join(dir, "manifests"));
    await writeFile(join(dir, "manifests/t.yaml"), "kind: tool\nname: t\ndescription: x\ncapabilities:\n  - name: a\n    description: y\n    colour: red\n");
    const bad = run(["validate"], dir);
    assert.is(bad.code, 1);
    assert.match(bad.err, /^manifests\/t\.yaml:7:5 - error MF1201: unknown key `colour`/);
    const json = run(["validate", "--format", "json"], dir);
    assert.is(json.code, 1);
    assert.equal(
      (JSON.parse(json.out) as { code: string; line: number; column: number }[]).map((d) => [d.code, d.line, d.column]),
      [["MF1201", 7, 5]],
    );
    const github = run(["gen", "--format", "github"], dir);
    assert.is(github.code, 1);
    assert.match(github.out, /^::error file=manifests\/t\.yaml,line=7,col=5,title=MF1201::unknown key `colour`/);
    const missing = run(["validate", "--manifests", "nowhere"], dir);
    assert.is(missing.code, 1);
    assert.match(missing.err, /MF1001/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
