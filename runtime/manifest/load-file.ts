/**
 * One manifest file on disk → its ComponentSpec, for serving a manifest without generated code; and
 * the display form of paths every diagnostic uses.
 */
import { relative, resolve, sep } from "node:path";
import type { ComponentSpec } from "../spec/index.js";
import { createDiagnostic } from "./diagnostics/create.js";
import { formatDiagnostics } from "./diagnostics/format.js";
import { hasErrors, type Project } from "./project.js";
import { loadManifestText } from "./load-sources.js";
import { DEFAULT_MAX_FILE_BYTES, readManifestFile } from "./read-file.js";
import type { ManifestFeature } from "./feature.js";
import { createManifestFiles } from "./manifest-files.js";

/** `path` relative to `cwd` with `/` separators, as diagnostics show it. */
export function displayFile(cwd: string, path: string): string {
  return relative(cwd, path).split(sep).join("/") || ".";
}

export interface LoadComponentOptions {
  /** The agent features whose manifest keys the format accepts. */
  readonly features: readonly ManifestFeature[];
  /** @defaultValue `process.cwd()` */
  readonly cwd?: string;
  /** @defaultValue 1 MiB */
  readonly maxFileBytes?: number;
}

/**
 * One tool or agent manifest → its ComponentSpec, for serving a manifest without generated code.
 * Checks that need other manifests (`uses`) are not run. Throws an Error whose message is the
 * diagnostics, formatted for a terminal, when the manifest has errors or is a workflow.
 */
export async function loadComponentFile(
  path: string,
  { features, cwd = process.cwd(), maxFileBytes = DEFAULT_MAX_FILE_BYTES }: LoadComponentOptions,
): Promise<ComponentSpec> {
  const file = displayFile(cwd, resolve(cwd, path));
  const read = await readManifestFile(resolve(cwd, path), maxFileBytes);
  const project: Project = read.ok
    ? loadManifestText(file, read.text, features, createManifestFiles(cwd))
    : { manifests: [], diagnostics: [createDiagnostic(read.code, file, read.position, read.message)] };
  if (hasErrors(project)) {
    const options = project.sources === undefined ? { color: false } : { color: false, sources: project.sources };
    throw new Error(formatDiagnostics(project.diagnostics, "pretty", options));
  }
  const component = project.manifests[0]?.component;
  if (component === undefined) throw new Error(`${file}: a workflow manifest cannot be served as a component; serve the agent that runs it`);
  return component;
}
