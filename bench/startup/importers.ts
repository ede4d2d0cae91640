/**
 * Which imports make a built component load what it loads before its first healthy /health, to find what
 * to load later: `npx tsx bench/startup/importers.ts travel-agent` (after `npm run build` and `npm run
 * build:example`). It starts `dist-example/manifests/travel/serve.js <name>` under module-recorder.mjs
 * with MANIFOLD_MODULE_IMPORTERS, stops it once /health answers 200, and prints the module count and the
 * import edges whose removal alone would unload the most modules (every other path to them kept), e.g.
 * `35 runtime/agent/features.js -> runtime/memory/feature.js`. An edge that unloads little is one of several
 * paths: cutting it alone does not pay. BENCH_TOP sets how many edges are listed (30).
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const name = process.argv[2] ?? "travel-agent";
const TOP = Number(process.env["BENCH_TOP"] ?? 30);

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });

/** Starts the component under the recorder, waits (at most 60 s) for a 200 on /health, stops it. */
async function record(modules: string, importers: string): Promise<void> {
  const port = await freePort();
  const serve = join(root, "dist-example", "manifests", "travel", "serve.js");
  const env = { ...process.env, PORT: String(port), MANIFOLD_MODULE_LOG: modules, MANIFOLD_MODULE_IMPORTERS: importers };
  const child = spawn(process.execPath, ["--import", join(root, "bench", "startup", "module-recorder.mjs"), serve, name], { stdio: "ignore", env });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((resolve) => setTimeout(resolve, 5))) {
      if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode} before it was healthy`);
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return;
    }
    throw new Error(`${name} not healthy within 60 s`);
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

const lines = (file: string): string[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "");

const [modules, importers] = [join(tmpdir(), `manifold-importers-${process.pid}.modules`), join(tmpdir(), `manifold-importers-${process.pid}.edges`)];
try {
  await record(modules, importers);
  const loaded = new Set(lines(modules).map((path) => relative(root, path)));
  const edges = new Map<string, Set<string>>();
  for (const line of lines(importers)) {
    const [module, importer] = line.split("\t").map((path) => relative(root, path!)) as [string, string];
    if (loaded.has(module) && loaded.has(importer)) edges.set(importer, (edges.get(importer) ?? new Set()).add(module));
  }
  // The entry: the loaded module nothing loaded imports.
  const imported = new Set([...edges.values()].flatMap((set) => [...set]));
  const entries = [...loaded].filter((module) => !imported.has(module));
  const reach = (skip?: readonly [string, string]): number => {
    const seen = new Set(entries);
    const stack = [...entries];
    while (stack.length > 0) {
      const from = stack.pop()!;
      for (const to of edges.get(from) ?? []) {
        if ((skip?.[0] === from && skip[1] === to) || seen.has(to)) continue;
        seen.add(to);
        stack.push(to);
      }
    }
    return seen.size;
  };
  const all = reach();
  const ranked = [...edges].flatMap(([from, tos]) => [...tos].map((to) => ({ from, to, unloads: all - reach([from, to]) })));
  ranked.sort((a, b) => b.unloads - a.unloads);
  console.log(`${name}: ${loaded.size} modules loaded up to its first healthy /health (entries: ${entries.join(", ")})`);
  for (const { from, to, unloads } of ranked.slice(0, TOP)) console.log(`${String(unloads).padStart(5)} ${from} -> ${to}`);
} finally {
  rmSync(modules, { force: true });
  rmSync(importers, { force: true });
}
