/**
 * The format accepts every part of an agent; this version does not serve all of them yet. Accepting
 * a key and then doing nothing with it is the silent ignoring the format forbids, so gen and validate
 * warn (MF1315) at each such key: the manifest stays valid, and its author knows exactly what is not
 * served yet. Which keys those are is read from the agent feature list it is given (each feature's `pending`).
 */
import type { PendingKey } from "./feature.js";
import { createDiagnostic, sortDiagnostics } from "./diagnostics/create.js";
import { parseManifest } from "./parse.js";
import type { Diagnostic, Project } from "./project.js";
import { keyPosition } from "./source-file.js";
import { MANIFOLD_VERSION } from "./version.js";

/** The value at `path` of a parsed manifest, or undefined. */
function valueAt(document: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = document;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** MF1315 at each pending key of each agent manifest of a project without errors, read from `features`. */
export function notGenerated(project: Project, features: readonly { readonly pending?: readonly PendingKey[] }[]): Diagnostic[] {
  const pending = features.flatMap((feature) => feature.pending ?? []);
  const found: Diagnostic[] = [];
  for (const manifest of project.manifests) {
    if (manifest.kind !== "agent") continue;
    const present = pending.filter(({ path }) => valueAt(manifest.document, path) !== undefined);
    if (present.length === 0) continue;
    // Positions come from the YAML tree, like every other check's; the text is parsed again only here.
    const text = project.sources?.get(manifest.file);
    const source = text === undefined ? undefined : parseManifest(manifest.file, text).source;
    for (const { path, serves } of present) {
      const at = source === undefined ? { line: 1, column: 1 } : keyPosition(source, path);
      found.push(
        createDiagnostic("MF1315", manifest.file, at, `\`${path.join(".")}\` is valid, but manifold v${MANIFOLD_VERSION} does not generate ${serves} yet`),
      );
    }
  }
  return sortDiagnostics(found);
}
