import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let found: string | undefined;

/**
 * The package's root folder, found by walking up from this file: the same code runs from the source
 * tree (runtime/) and from the build (dist/runtime/), one level apart. Files tsc does not copy
 * (templates, Lua scripts) are read relative to it.
 */
export function packageRoot(): string {
  found ??= findPackageRoot();
  return found;
}

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, "utf8")) as { name?: string }).name === "agent-manifold") return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("internal: agent-manifold package root not found");
    dir = parent;
  }
}
