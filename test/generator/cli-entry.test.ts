/**
 * The bin entry (package.json "bin", generator/manifold.cts): CommonJS that answers the help and the version
 * itself and hands every other command to the ES entry. Its answers must be main()'s, byte for byte and exit code.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import cliText from "../../generator/cli-text.cjs";
import { main } from "../../generator/cli.js";
import { staleBuildSource } from "../../generator/stale-build.js";
import { MANIFOLD_VERSION } from "../../runtime/manifest/version.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { tempProject } from "./load-helpers.js";

const root = new URL("../..", import.meta.url).pathname;

async function viaMain(argv: readonly string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t), color: false });
  return { out, err, code };
}

test("the version it prints is MANIFOLD_VERSION", () => {
  assert.is(cliText.VERSION, MANIFOLD_VERSION);
});

test("help and version answered by the entry are main()'s bytes and exit codes", async () => {
  for (const argv of [[], ["--help"], ["-h"], ["help"], ["--version"], ["-v"]]) {
    const fixed = cliText.fixedAnswer(argv);
    const expected = await viaMain(argv);
    assert.ok(fixed !== undefined, argv.join(" "));
    assert.is(expected.err, "", argv.join(" "));
    assert.is(fixed!.out, expected.out, argv.join(" "));
    assert.is(fixed!.code, expected.code, argv.join(" "));
  }
});

test("anything else is left to main()", () => {
  for (const argv of [["gen"], ["validate"], ["gen", "--help"], ["help", "gen"], ["--help", "--version"], ["-hv"], ["--bogus"], ["init"]])
    assert.is(cliText.fixedAnswer(argv), undefined, argv.join(" "));
});

test("package.json's bin is the compiled entry, which answers itself and dispatches the rest", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { bin: Record<string, string> };
  assert.is(pkg.bin["manifold"], "dist/generator/manifold.cjs");
  const entry = join(root, "generator/manifold.cts");
  const version = spawnSync(process.execPath, [...TS_NODE_ARGS, entry, "--version"], { cwd: root, encoding: "utf8", timeout: 60_000 });
  assert.is(version.status, 0, version.stderr);
  assert.is(version.stdout, `${MANIFOLD_VERSION}\n`);
  // Through bin.ts: a usage error's message and exit code.
  const usage = spawnSync(process.execPath, [...TS_NODE_ARGS, entry, "gen", "--chek"], { cwd: root, encoding: "utf8", timeout: 60_000 });
  assert.is(usage.status, 2, usage.stderr);
  assert.is(usage.stderr, "manifold: unknown option --chek (did you mean --check?)\nRun manifold --help for usage.\n");
});

test("a checkout's dist/ is stale when a CommonJS source (.cts) is newer than it", async () => {
  const { root: dir, cleanup } = await tempProject({ "dist/generator/bin.js": "", "generator/bin.ts": "", "generator/cli-text.cts": "" });
  try {
    const now = Math.floor(Date.now() / 1000);
    utimesSync(join(dir, "generator/bin.ts"), now - 7_200, now - 7_200);
    utimesSync(join(dir, "dist/generator/bin.js"), now - 3_600, now - 3_600);
    utimesSync(join(dir, "generator/cli-text.cts"), now, now);
    assert.is(staleBuildSource(join(dir, "dist/generator/bin.js")), "generator/cli-text.cts");
  } finally {
    await cleanup();
  }
});

test.run();
