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
  // The time reads `584 ms`, or `1.32 s` past a second (a loaded CI machine).
  assert.match(ok.out, /^manifold: 8 manifests \+ shipped scheduler valid in (\d+ ms|\d+\.\d\d s)\n$/);
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
    assert.is(missing.code, 2, "a folder that is not there is a usage error");
    assert.is(missing.err, "manifold: manifests folder nowhere does not exist; pass --manifests DIR\n", "no made-up position");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("--format json: stdout is the JSON document alone, [] when clean, summaries on stderr", async () => {
  const clean = run(["validate", "--format", "json"]);
  assert.is(clean.code, 0, clean.err);
  assert.equal(JSON.parse(clean.out), []);
  const checked = run(["gen", "--check", "--format", "json"]);
  assert.is(checked.code, 0, checked.err);
  assert.equal(JSON.parse(checked.out), []);
  assert.match(checked.err, /up to date/);
});

test("typos get a suggestion; gen --help and help validate print that command's help", () => {
  assert.is(run(["gen", "--chek"]).err, "manifold: unknown option --chek (did you mean --check?)\nRun manifold --help for usage.\n");
  assert.match(run(["validate", "--formt", "json"]).err, /unknown option --formt \(did you mean --format\?\)/);
  assert.match(run(["genn"]).err, /unknown command "genn" \(did you mean gen\?\)/);
  assert.not.match(run(["gen", "--zzzzzz"]).err, /did you mean/, "no far-fetched guess");
  const help = run(["gen", "--help"]);
  assert.is(help.code, 0);
  assert.match(help.out, /^Usage: manifold gen /);
  assert.match(help.out, /--check +write nothing/);
  assert.match(run(["help", "validate"]).out, /^Usage: manifold validate /);
  assert.match(run(["dead-letters", "--help"]).out, /--replay TASK_ID/);
});

test("a YAML syntax error in one file is reported alone: the references to what it defines are not called unknown", async () => {
  const dir = await mkdtemp(join(tmpdir(), "manifold-cli-"));
  try {
    await mkdir(join(dir, "manifests"));
    await writeFile(
      join(dir, "manifests/a-weather.yaml"),
      "kind: tool\nname: weather\ndescription: x\ncapabilities:\n  - name: a\n    description: [unclosed\n",
    );
    await writeFile(join(dir, "manifests/b-agent.yaml"), "kind: agent\nname: trip-agent\ndescription: x\nuses: [weather]\ncapabilities: []\n");
    const r = run(["validate"], dir);
    assert.is(r.code, 1);
    assert.match(r.err, /a-weather\.yaml:\d+:\d+ - error MF1006/);
    assert.not.match(r.err, /MF1310/, "no misleading 'uses names weather, but no manifest has that name'");
    assert.match(r.err, /checks across files were skipped until every file parses/);
    const json = run(["validate", "--format", "json"], dir);
    assert.equal(
      (JSON.parse(json.out) as { code: string }[]).map((d) => d.code),
      ["MF1006"],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("gen names each file it removes", async () => {
  const dir = await mkdtemp(join(tmpdir(), "manifold-cli-"));
  try {
    await mkdir(join(dir, "manifests"));
    const tool = (name: string) => `kind: tool\nname: ${name}\ndescription: x\ncapabilities:\n  - name: a\n    description: y\n`;
    await writeFile(join(dir, "manifests/one.yaml"), tool("one-tool"));
    await writeFile(join(dir, "manifests/two.yaml"), tool("two-tool"));
    assert.is(run(["gen"], dir).code, 0);
    await rm(join(dir, "manifests/two.yaml"));
    const second = run(["gen"], dir);
    assert.is(second.code, 0, second.err);
    assert.match(second.out, /^ {2}removed {2}generated\/two-tool\/index\.ts$/m);
    assert.match(second.out, /^ {2}removed {2}generated\/two-tool\/openapi\.json$/m);
    assert.match(second.out, /\d+ removed/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
