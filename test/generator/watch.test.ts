/**
 * `manifold gen --watch`: the real CLI as a child process (a save regenerates, an error keeps it
 * alive, a burst of saves is one run, Ctrl-C exits 0), then the loop in-process with a stand-in for
 * gen (runs never overlap, editors' rename-over saves and new folders are seen, a vanished manifests
 * folder is waited for). Every wait is bounded.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { WATCH_DEBOUNCE_MS, watchManifests } from "../../generator/watch.js";
import { startProcess, type Started } from "../support/processes.js";
import { eventually, sleep, within } from "../support/wait.js";
import { tempProject } from "./load-helpers.js";

const bin = new URL("../../generator/bin.ts", import.meta.url).pathname;
const TRIP_TOOL = readFileSync(new URL("../fixtures/manifests/trip-tool.yaml", import.meta.url), "utf8");
const ORIGINAL_DESCRIPTION = "description: A fixture tool for end-to-end tests";
const count = (text: string, pattern: RegExp) => (text.match(new RegExp(pattern.source, "gm")) ?? []).length;
const SUMMARY = /^manifold: \d+ written, \d+ unchanged/;
const REGENERATING = /^manifold: change in .*, regenerating$/;

/** `manifold <args>` from source, as a child process of the suite. */
function manifold(args: readonly string[], cwd?: string): Promise<Started> {
  return startProcess({ name: `manifold ${args.join(" ")}`, entry: bin, args, ...(cwd === undefined ? {} : { cwd }) });
}

test("the CLI: a save regenerates, an error keeps it watching, a burst is one run, Ctrl-C exits 0", async () => {
  const { root, cleanup } = await tempProject({ "package.json": '{ "name": "watched" }\n', "manifests/trip-tool.yaml": TRIP_TOOL });
  const manifest = join(root, "manifests/trip-tool.yaml");
  const openapi = join(root, "generated/trip-tool/openapi.json");
  const watch = await manifold(["gen", "--watch", "--manifests", "manifests", "--out", "generated"], root);
  const out = () => watch.stdout();
  const err = () => watch.stderr();
  const seen = () => `stdout:\n${out()}\nstderr:\n${err()}`;
  const summaries = () => count(out(), SUMMARY);
  try {
    const watching = "manifold: watching manifests for changes (Ctrl-C to stop)\n";
    await eventually("the first gen", () => summaries() === 1 && err().includes(watching), { describe: seen, limitMs: 60_000 });
    assert.match(out(), /^manifold: 9 written, 0 unchanged \(1 manifest\) in \d+/, "the first run is a plain gen");
    assert.match(await readFile(openapi, "utf8"), /A fixture tool for end-to-end tests/);

    // (1) An edit regenerates, announced on stderr.
    await writeFile(manifest, TRIP_TOOL.replace(ORIGINAL_DESCRIPTION, "description: Edited while watched"));
    await eventually("the second summary", () => summaries() === 2, { describe: seen });
    assert.match(err(), /^manifold: change in manifests\/trip-tool\.yaml, regenerating$/m);
    assert.match(await readFile(openapi, "utf8"), /Edited while watched/);
    assert.not.match(await readFile(openapi, "utf8"), /A fixture tool for end-to-end tests/);

    // (2) A broken manifest: its diagnostic, and the watch goes on.
    await writeFile(manifest, `${TRIP_TOOL}colour: red\n`);
    await eventually("the diagnostics", () => err().includes("nothing written"), { describe: seen });
    assert.match(err(), /manifests\/trip-tool\.yaml:\d+:1 - error MF1201: unknown key `colour`/);
    await sleep(4 * WATCH_DEBOUNCE_MS);
    assert.is(watch.exit(), undefined, "errors do not end the watch");
    assert.is(summaries(), 2, "nothing written, no summary");
    assert.match(await readFile(openapi, "utf8"), /Edited while watched/, "the output is left as it was");

    // (3) Fixed: regenerated.
    await writeFile(manifest, TRIP_TOOL.replace(ORIGINAL_DESCRIPTION, "description: Fixed while watched"));
    await eventually("the summary after the fix", () => summaries() === 3, { describe: seen });
    assert.match(await readFile(openapi, "utf8"), /Fixed while watched/);

    // (4) Five saves in a burst: one run, which sees the last. The watch is paused (SIGSTOP) while they
    // are written and their events wait in the kernel, so it gets all five together, however slowly
    // this machine writes them: a burst by construction, not by a stopwatch.
    watch.child.kill("SIGSTOP");
    for (let i = 1; i <= 5; i++) writeFileSync(manifest, TRIP_TOOL.replace(ORIGINAL_DESCRIPTION, `description: Burst ${i}`));
    watch.child.kill("SIGCONT");
    await eventually("the summary after the burst", () => summaries() === 4, { describe: seen });
    assert.match(await readFile(openapi, "utf8"), /Burst 5/);
    await sleep(5 * WATCH_DEBOUNCE_MS);
    assert.is(summaries(), 4, `one regeneration for the burst\n${seen()}`);
    assert.is(count(err(), REGENERATING), 4, "one announcement per run");

    // (5) Ctrl-C: exit 0 by itself (a watch that ignored it would be killed when the wait gives up, and fail here).
    assert.equal(await watch.stop({ signal: "SIGINT" }), { code: 0, signal: null }, `the watch ended on SIGINT\n${seen()}`);
  } finally {
    await watch.kill();
    await cleanup();
  }
});

test("the CLI: --watch goes with gen alone and not with --check (usage errors, exit 2)", async () => {
  for (const [args, message] of [
    [["validate", "--watch"], "manifold: --watch goes with gen\n"],
    [["gen", "--watch", "--check"], "manifold: --watch and --check do not go together\n"],
    [["gen", "--wacth"], "manifold: unknown option --wacth (did you mean --watch?)\nRun manifold --help for usage.\n"],
  ] as const) {
    const cli = await manifold(args);
    assert.equal(await within(`manifold ${args.join(" ")} to exit`, cli.exited, 60_000), { code: 2, signal: null }, args.join(" "));
    assert.is(cli.stderr(), message);
  }
});

/** watchManifests over a temporary manifests folder with a stand-in for gen that counts its runs. */
async function watchedProject({ runMs = 0, firstCode = 0 }: { runMs?: number; firstCode?: number } = {}) {
  const { root, cleanup } = await tempProject({ "manifests/a.yaml": "kind: tool\n" });
  const dir = join(root, "manifests");
  const controller = new AbortController();
  const state = { runs: 0, running: 0, overlapped: false, err: "" };
  const done = watchManifests({
    manifestsDir: dir,
    io: { err: (t) => (state.err += t) },
    signal: controller.signal,
    vanishedPollMs: 20,
    regenerate: async () => {
      state.runs++;
      state.running++;
      if (state.running > 1) state.overlapped = true;
      await sleep(runMs);
      state.running--;
      return state.runs === 1 ? firstCode : 0;
    },
  });
  const seen = () => `${state.runs} runs; stderr:\n${state.err}`;
  const stop = async () => {
    controller.abort();
    try {
      return await within("the watch to end after the abort", done);
    } finally {
      await cleanup();
    }
  };
  if (firstCode !== 2) await eventually("the watch to start", () => state.err.includes("for changes (Ctrl-C to stop)"), { describe: seen });
  return { dir, state, seen, done, stop };
}

test("in-process: a save during a run gives exactly one more run, never two at once", async () => {
  const { dir, state, seen, stop } = await watchedProject({ runMs: 400 });
  try {
    await writeFile(join(dir, "a.yaml"), "kind: tool\nname: one\n");
    await eventually("the second run", () => state.running === 1 && state.runs === 2, { describe: seen });
    await writeFile(join(dir, "a.yaml"), "kind: tool\nname: two\n");
    await writeFile(join(dir, "a.yaml"), "kind: tool\nname: three\n");
    await eventually("the run after the busy one", () => state.runs === 3, { describe: seen });
    await eventually("the third run to end", () => state.running === 0, { describe: seen });
    await sleep(4 * WATCH_DEBOUNCE_MS);
    assert.is(state.runs, 3, seen());
    assert.not.ok(state.overlapped, "no two runs at once");
  } finally {
    assert.is(await stop(), 0, "an abort ends the watch with 0");
  }
});

test("in-process: rename-over saves (as editors save), new folders and files in them, other files ignored", async () => {
  const { dir, state, seen, stop } = await watchedProject();
  try {
    for (const text of ["kind: tool\nname: one\n", "kind: tool\nname: two\n"]) {
      const runs = state.runs;
      await writeFile(join(dir, ".a.yaml.swp"), text);
      await rename(join(dir, ".a.yaml.swp"), join(dir, "a.yaml"));
      await eventually("a run after a rename-over save", () => state.runs === runs + 1, { describe: seen });
    }
    await writeFile(join(dir, "a.yaml"), "kind: tool\nname: three\n");
    await eventually("a run after an in-place save of the renamed file", () => state.runs === 4, { describe: seen });
    await mkdir(join(dir, "nested/deeper"), { recursive: true });
    await eventually("a run for the new folder", () => state.runs === 5, { describe: seen });
    await writeFile(join(dir, "nested/deeper/b.yml"), "kind: tool\n");
    await eventually("a run for a manifest in the new folder", () => state.runs === 6, { describe: seen });
    assert.match(state.err, /change in .*manifests\/nested\/deeper\/b\.yml, regenerating/);
    await writeFile(join(dir, "notes.txt"), "not a manifest\n");
    await mkdir(join(dir, ".hidden"));
    await writeFile(join(dir, ".hidden/c.yaml"), "kind: tool\n");
    await sleep(4 * WATCH_DEBOUNCE_MS);
    assert.is(state.runs, 6, `files the loader does not read start no run\n${seen()}`);
    await rm(join(dir, "a.yaml"));
    await eventually("a run after a removal", () => state.runs === 7, { describe: seen });
  } finally {
    assert.is(await stop(), 0);
  }
});

test("in-process: a manifests folder that vanishes is waited for, then watched again", async () => {
  const { dir, state, seen, stop } = await watchedProject();
  try {
    await rm(dir, { recursive: true });
    await eventually("the vanished message", () => state.err.includes("is gone; waiting for it to come back (Ctrl-C to stop)"), { describe: seen });
    assert.is(state.runs, 1, "no run without the folder");
    // Restored whole (as a checkout would), so no save races the folder's return.
    const incoming = join(dir, "../incoming");
    await mkdir(incoming);
    await writeFile(join(incoming, "back.yaml"), "kind: tool\n");
    await rename(incoming, dir);
    await eventually("a run once the folder is back", () => state.runs === 2, { describe: seen });
    assert.match(state.err, /manifests is back, regenerating\n/);
    await sleep(4 * WATCH_DEBOUNCE_MS);
    assert.is(state.runs, 2, seen());
    await writeFile(join(dir, "back.yaml"), "kind: tool\nname: again\n");
    await eventually("a run for a save in the new folder", () => state.runs === 3, { describe: seen });
  } finally {
    assert.is(await stop(), 0);
  }
});

test("in-process: a usage error on the first run (exit 2) ends it before watching", async () => {
  const { state, done, stop } = await watchedProject({ firstCode: 2 });
  assert.is(await done, 2);
  assert.is(state.runs, 1);
  assert.not.match(state.err, /watching/);
  await stop();
});

test.run();
