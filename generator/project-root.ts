import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * The project a manifests folder belongs to: the nearest folder at or above it holding a
 * `package.json`. Paths in diagnostics and in generated headers are relative to it, so the output is
 * the same whichever folder gen runs from. Without one, the manifests folder's parent.
 */
export function findProjectRoot(manifestsDir: string): string {
  const start = resolve(manifestsDir);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return dirname(start);
  }
}
