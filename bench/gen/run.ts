/**
 * bench:gen — `manifold gen` (the compiled bin, as a user runs it) against openapi-typescript generating
 * types only from the OpenAPI documents gen itself emits, each as its own process over the same project,
 * sides alternated per round, medians of rounds. Aim: gen at least 2× faster (ratio = alternative / gen).
 * Cases: a cold gen (empty output folder), `gen --check`, and gen after one manifest changed, with its
 * content-hash cache and without it (the cache's own alternative).
 *
 *   npm run bench:gen                      # 10 and 100 tools × 10 capabilities (100 and 1,000 capabilities)
 *   npm run bench:gen -- --huge            # adds 1,000 tools (10,000 capabilities): 13 minutes in all at load 13–19 on 2 cores
 *   npm run bench:gen -- --tools 50 --rounds 3
 *   BENCH_GEN_CHECKOUT=/path/to/worktree npm run bench:gen   # that checkout's gen, this harness (before/after)
 *
 * A folder a timed run needs empty is moved aside, and everything is deleted once the bench ends: on ext4
 * without a journal (this machine's disk) the kernel steps over every recently freed inode, one buffer
 * lookup each, whenever it makes a file (perf: find_inode_bit → recently_deleted), so deleting the last
 * round's 2,208 files just before a cold gen charged that gen the harness's clean-up: 1.34–1.79 s of
 * system time against 0.30–0.64 s with the folder moved aside (1,000 capabilities, 3 alternated pairs).
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { buildBin } from "./build.js";
import { toolManifest, writeProject } from "./synth.js";

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const sizes = option("--tools")?.split(",").map(Number) ?? [10, 100, ...(args.includes("--huge") ? [1000] : [])];
const CAPABILITIES = 10;
const AIM = 2;
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const work = mkdtempSync(join(tmpdir(), "manifold-bench-gen-"));
const ALTERNATIVE = join(import.meta.dirname, "openapi-ts-all.mjs");
const checkout = process.env["BENCH_GEN_CHECKOUT"];
console.log(`building the bin${checkout === undefined ? "" : ` of ${checkout}`} into ${work} (load ${load()})`);
const bin = buildBin(work, checkout);
const aside = join(work, "aside");
mkdirSync(aside);
let moved = 0;
/** Empties `path` for the next timed run by moving it aside (see the header): deleted when the bench ends. */
const clear = (path: string): void => {
  if (existsSync(path)) renameSync(path, join(aside, String(moved++)));
};

/** Wall time of one process, in ms; a failure stops the bench with its output. */
function timed(command: string[], cwd: string, expect = 0): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, command, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== expect) throw new Error(`${command.join(" ")} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return ms;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

for (const tools of sizes) {
  const rounds = Number(option("--rounds") ?? (tools >= 1000 ? 1 : tools >= 100 ? 3 : 5));
  const dir = join(work, `p${tools}`);
  const paths = writeProject(join(dir, "manifests"), { tools, capabilities: CAPABILITIES });
  writeFileSync(join(dir, "package.json"), '{ "name": "bench-project", "private": true }\n');
  const gen = (...extra: string[]): string[] => [bin, "gen", "--manifests", "manifests", "--out", "out", ...extra];
  timed(gen(), dir); // warms the disk cache and makes the documents the alternative reads
  cpSync(join(dir, "out"), join(dir, "docs"), { recursive: true });
  const times: Record<string, number[]> = { cold: [], alternative: [], check: [], oneChange: [], oneChangeNoCache: [] };
  const loads: string[] = [];
  let revision = 0;
  const cases: [string, () => number][] = [
    [
      "cold",
      () => {
        clear(join(dir, "out"));
        return timed(gen(), dir);
      },
    ],
    [
      "alternative",
      () => {
        clear(join(dir, "types"));
        return timed([ALTERNATIVE, "docs", "types"], dir);
      },
    ],
    ["check", () => timed(gen("--check"), dir)],
    [
      "oneChange",
      () => {
        writeFileSync(paths[tools - 1]!, toolManifest(tools - 1, CAPABILITIES, ++revision));
        return timed(gen(), dir);
      },
    ],
    [
      "oneChangeNoCache",
      () => {
        writeFileSync(paths[tools - 1]!, toolManifest(tools - 1, CAPABILITIES, ++revision));
        rmSync(join(dir, "out", ".manifold-cache"), { recursive: true, force: true });
        return timed(gen(), dir);
      },
    ],
  ];
  for (let round = 0; round < rounds; round++) {
    // Alternate: each round starts one case later, so no side always runs on the warmer machine.
    for (let i = 0; i < cases.length; i++) {
      const [name, run] = cases[(i + round) % cases.length]!;
      // --check runs against the folder the last gen left: make it current first (untimed).
      if (name === "check") timed(gen(), dir);
      times[name]!.push(run());
    }
    loads.push(load());
  }
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const alt = m["alternative"]!;
  const row = (label: string, ms: number, versus: number, what: string): string =>
    `  ${label.padEnd(34)} ${fmt(ms).padStart(8)}   ${what} ${(versus / ms).toFixed(2)}× (aim ≥ ${AIM}×: ${versus / ms >= AIM ? "holds" : "missed"})`;
  console.log(
    `\n${tools} tools × ${CAPABILITIES} capabilities (${tools * CAPABILITIES} capabilities), ${rounds} rounds, medians; load after each round: ${loads.join(" | ")}`,
  );
  console.log(`  ${"openapi-typescript (types only)".padEnd(34)} ${fmt(alt).padStart(8)}`);
  console.log(row("gen, cold (empty output folder)", m["cold"]!, alt, "vs openapi-typescript"));
  console.log(row("gen --check", m["check"]!, alt, "vs openapi-typescript"));
  console.log(row("gen after one manifest changed", m["oneChange"]!, alt, "vs openapi-typescript"));
  console.log(
    `  ${"  same without the cache".padEnd(34)} ${fmt(m["oneChangeNoCache"]!).padStart(8)}   the cache saves ${fmt(m["oneChangeNoCache"]! - m["oneChange"]!)}`,
  );
}
rmSync(work, { recursive: true, force: true });
