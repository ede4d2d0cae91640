/**
 * Manifests shipped in the package: a project that `uses` one of these names without defining a
 * component of that name gets the shipped manifest, as if it were one of its own files, so gen
 * emits its typed client (`uses: [scheduler]`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { packageRoot } from "../package-root.js";

/** Name → path inside the package. */
export const BUILTIN_MANIFESTS: Readonly<Record<string, string>> = { scheduler: "runtime/scheduling/scheduler.yaml" };

/** The `file` a built-in manifest is shown as: stable across machines, obviously not the user's. */
export const builtinFile = (name: string): string => `agent-manifold/${BUILTIN_MANIFESTS[name]}`;

export const isBuiltinFile = (file: string): boolean => Object.keys(BUILTIN_MANIFESTS).some((name) => builtinFile(name) === file);

interface Source {
  readonly file: string;
  readonly text: string;
}

/** The shipped manifests the sources use by name and do not define; unreadable YAML is left to the real parse. */
export function builtinSources(sources: readonly Source[]): Source[] {
  const defined = new Set<string>();
  const used = new Set<string>();
  for (const { text } of sources) {
    let doc: unknown;
    try {
      doc = parse(text);
    } catch {
      continue;
    }
    if (typeof doc !== "object" || doc === null) continue;
    const { name, uses } = doc as { name?: unknown; uses?: unknown };
    if (typeof name === "string") defined.add(name);
    if (Array.isArray(uses)) for (const entry of uses) if (typeof entry === "string") used.add(entry);
  }
  return Object.keys(BUILTIN_MANIFESTS)
    .filter((name) => used.has(name) && !defined.has(name))
    .map((name) => ({ file: builtinFile(name), text: readFileSync(join(packageRoot(), BUILTIN_MANIFESTS[name]!), "utf8") }));
}
