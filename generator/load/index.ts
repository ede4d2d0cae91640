/**
 * Loading manifests: files on disk → a Project of normalised manifests and positioned diagnostics.
 * Nothing here throws on bad input (except `loadComponentFile`, whose contract is to throw a readable
 * message); every problem becomes a diagnostic.
 */
import { relative, resolve, sep } from "node:path";
import type { ComponentSpec } from "../../runtime/spec/types.js";
import { START, createDiagnostic } from "../diagnostics/create.js";
import { formatDiagnostics } from "../diagnostics/format.js";
import { hasErrors, type Diagnostic, type Project } from "../project.js";
import { findManifestFiles } from "./find-files.js";
import { assemble, loadManifestText, type ManifestSource } from "./load-sources.js";
import { DEFAULT_MAX_FILE_BYTES, readManifestFile } from "./read-file.js";

export { loadManifestText, loadSources, type ManifestSource } from "./load-sources.js";
export { DEFAULT_MAX_FILE_BYTES } from "./read-file.js";
export { MANIFEST_SCHEMA } from "./meta-schema.js";
export { loadWorkflowText, type WorkflowTextResult } from "./workflow-text.js";

export interface LoadOptions {
  /** The folder searched recursively for `*.yaml` and `*.yml`; relative to `cwd` or absolute. */
  readonly manifestsDir: string;
  /**
   * Diagnostics and `LoadedManifest.file` are relative to it.
   * @defaultValue `process.cwd()`
   */
  readonly cwd?: string;
  /**
   * Larger files are reported (MF1004), not read.
   * @defaultValue 1 MiB
   */
  readonly maxFileBytes?: number;
}

/** `path` relative to `cwd` with `/` separators, as diagnostics show it. */
export function displayFile(cwd: string, path: string): string {
  return relative(cwd, path).split(sep).join("/") || ".";
}

export async function loadProject({ manifestsDir, cwd = process.cwd(), maxFileBytes = DEFAULT_MAX_FILE_BYTES }: LoadOptions): Promise<Project> {
  const dir = resolve(cwd, manifestsDir);
  const found = await findManifestFiles(dir);
  if (!found.ok) {
    const diagnostic = createDiagnostic("MF1001", displayFile(cwd, dir), START, `manifests folder ${displayFile(cwd, dir)} ${found.reason}`);
    return { manifests: [], diagnostics: [diagnostic], sources: new Map() };
  }
  const diagnostics: Diagnostic[] = found.unreadable.map((u) => createDiagnostic("MF1003", displayFile(cwd, u.path), START, `cannot read the folder: ${u.reason}`));
  if (found.files.length === 0 && found.unreadable.length === 0) {
    diagnostics.push(createDiagnostic("MF1002", displayFile(cwd, dir), START, `no manifests (*.yaml, *.yml) under ${displayFile(cwd, dir)}`));
  }
  const sources: ManifestSource[] = [];
  for (const path of found.files) {
    const file = displayFile(cwd, path);
    const read = await readManifestFile(path, maxFileBytes);
    if (read.ok) sources.push({ file, text: read.text });
    else diagnostics.push(createDiagnostic(read.code, file, read.position, read.message));
  }
  return assemble(sources, { crossFile: true, diagnostics });
}

export interface LoadComponentOptions {
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
export async function loadComponentFile(path: string, { cwd = process.cwd(), maxFileBytes = DEFAULT_MAX_FILE_BYTES }: LoadComponentOptions = {}): Promise<ComponentSpec> {
  const file = displayFile(cwd, resolve(cwd, path));
  const read = await readManifestFile(resolve(cwd, path), maxFileBytes);
  const project: Project = read.ok
    ? loadManifestText(file, read.text)
    : { manifests: [], diagnostics: [createDiagnostic(read.code, file, read.position, read.message)] };
  if (hasErrors(project)) {
    const options = project.sources === undefined ? { color: false } : { color: false, sources: project.sources };
    throw new Error(formatDiagnostics(project.diagnostics, "pretty", options));
  }
  const component = project.manifests[0]?.component;
  if (component === undefined) throw new Error(`${file}: a workflow manifest cannot be served as a component; serve the agent that runs it`);
  return component;
}
