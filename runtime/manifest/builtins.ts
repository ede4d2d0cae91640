/**
 * Manifests shipped in the package: a project that `uses` one of these names without defining a
 * component of that name gets the shipped manifest, as if it were one of its own files, so gen
 * emits its typed client (`uses: [scheduler]`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../package-root.js";
import { usedName, type RawUse } from "./manifest-types.js";

/** Name → path inside the package. */
export const BUILTIN_MANIFESTS: Readonly<Record<string, string>> = { scheduler: "runtime/scheduling/scheduler.yaml" };

/** The `file` a built-in manifest is shown as: stable across machines, obviously not the user's. */
export const builtinFile = (name: string): string => `agent-manifold/${BUILTIN_MANIFESTS[name]}`;

export const isBuiltinFile = (file: string): boolean => Object.keys(BUILTIN_MANIFESTS).some((name) => builtinFile(name) === file);

interface Source {
  readonly file: string;
  readonly text: string;
}

/** What the loader read of one file: its declared name, and its `uses` once the file checked. */
interface Loaded {
  readonly declared?: { readonly name: string };
  readonly checked?: { readonly manifest: object };
}

/** The shipped manifests the loaded files use by name and do not define. */
export function builtinSources(loaded: readonly Loaded[]): Source[] {
  const defined = new Set(loaded.flatMap((l) => (l.declared === undefined ? [] : [l.declared.name])));
  // Only agents have `uses` (the meta-schema refuses it elsewhere).
  const used = new Set(loaded.flatMap((l) => ((l.checked?.manifest as { uses?: readonly RawUse[] } | undefined)?.uses ?? []).map(usedName)));
  return Object.keys(BUILTIN_MANIFESTS)
    .filter((name) => used.has(name) && !defined.has(name))
    .map((name) => ({ file: builtinFile(name), text: readFileSync(join(packageRoot(), BUILTIN_MANIFESTS[name]!), "utf8") }));
}
