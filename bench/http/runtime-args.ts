/**
 * How bench/http's servers load this package's runtime: as users run it, tsc's output in dist/ (the
 * server file itself still under tsx, its `agent-manifold/...` imports resolved without the `source`
 * condition), or from the TypeScript sources under tsx. Under tsx every closure assigned to a name
 * goes through esbuild's `__name` (`Object.defineProperty`), which shipped code never runs.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { staleBuildSource } from "../../generator/stale-build.js";
import { TS_NODE_ARGS } from "../../test/support/ts-node-args.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The node arguments that run a bench server with the runtime from dist/ (`built`) or from its sources. */
export function runtimeNodeArgs(built: boolean): readonly string[] {
  return built ? TS_NODE_ARGS.filter((arg) => arg !== "--conditions=source") : TS_NODE_ARGS;
}

/** dist/ as fresh as the sources, built here when it is not (the bin's own staleness check). */
export function ensureBuilt(): void {
  const bin = resolve(root, "dist/generator/bin.js");
  if (existsSync(bin) && staleBuildSource(bin) === undefined) return;
  process.stderr.write("dist/ is missing or older than the sources; npm run build\n");
  if (spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" }).status !== 0) throw new Error("npm run build failed");
}
