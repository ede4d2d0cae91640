/**
 * In this package's own checkout, `manifold` (the bin) runs `dist/`, which only `npm run build`
 * refreshes: after a pull, a dist/ compiled from older sources judges today's manifests by
 * yesterday's rules ("`kind` must be one of tool, agent, workflow") and reports errors no manifest
 * edit can fix. This names the cause instead. An installed package ships no `generator/` sources, so
 * there it costs one `existsSync`.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * Whether `manifold <argv>` only prints fixed text (help, version, the usage of no command): it judges
 * nothing, so a checkout's scan of ~550 sources (tens of ms) would only slow it down.
 */
export function printsOnly(argv: readonly string[]): boolean {
  return argv.length === 0 || argv[0] === "help" || argv.some((a) => a === "--help" || a === "-h" || a === "--version" || a === "-v");
}

/** The first source file newer than the build the bin at `binPath` belongs to, or undefined. */
export function staleBuildSource(binPath: string): string | undefined {
  if (!binPath.endsWith(join("dist", "generator", "bin.js"))) return undefined; // running the sources
  const root = resolve(dirname(binPath), "..", "..");
  if (!existsSync(join(root, "generator", "bin.ts"))) return undefined; // an installed package
  const built = statSync(binPath).mtimeMs;
  const schema = join(root, "manifest.schema.json");
  if (existsSync(schema) && statSync(schema).mtimeMs > built) return "manifest.schema.json";
  for (const folder of ["generator", "runtime"]) {
    for (const entry of readdirSync(join(root, folder), { recursive: true, withFileTypes: true })) {
      // Sources (ES .ts, CommonJS .cts) and the JSON they import (the format schema).
      if (!entry.isFile() || !/\.(c?ts|json)$/.test(entry.name)) continue;
      const path = join(entry.parentPath, entry.name);
      if (statSync(path).mtimeMs > built) return relative(root, path).split(sep).join("/");
    }
  }
  return undefined;
}
