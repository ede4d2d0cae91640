import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package's root folder, found by walking up from this file: the same code runs from the source
 * tree (generator/) and from the build (dist/generator/), one level apart.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, "utf8")) as { name?: string }).name === "agent-manifold") return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("internal: agent-manifold package root not found");
    dir = parent;
  }
}
