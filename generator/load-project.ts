/**
 * gen's loading: every `*.yaml` / `*.yml` under the manifests folder → a Project of normalised
 * manifests and positioned diagnostics. Nothing here throws on bad input; every problem becomes a
 * diagnostic.
 */
import { realpath } from "node:fs/promises";
import { resolve, sep } from "node:path";
import {
  assemble,
  createDiagnostic,
  createManifestFiles,
  DEFAULT_MAX_FILE_BYTES,
  displayFile,
  manifestText,
  readManifestFile,
  START,
  type Diagnostic,
  type ManifestSource,
  type Project,
} from "../runtime/manifest/index.js";
import { findManifestFiles } from "./find-files.js";
import type { ParseCache } from "./parse-cache.js";
import { FILES_AT_ONCE, forEachLimit } from "./parallel.js";
import { AGENT_FEATURES } from "../runtime/agent/features.js";

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
  /** Values texts parsed to before (gen's parse cache, see parse-cache.ts). @defaultValue none: every text is parsed */
  readonly parsed?: ParseCache;
}

export async function loadProject({ manifestsDir, cwd = process.cwd(), maxFileBytes = DEFAULT_MAX_FILE_BYTES, parsed }: LoadOptions): Promise<Project> {
  const dir = resolve(cwd, manifestsDir);
  const found = await findManifestFiles(dir);
  if (!found.ok) {
    const diagnostic = createDiagnostic("MF1001", displayFile(cwd, dir), START, `manifests folder ${displayFile(cwd, dir)} ${found.reason}`);
    return { manifests: [], diagnostics: [diagnostic], sources: new Map() };
  }
  const diagnostics: Diagnostic[] = found.unreadable.map((u) =>
    createDiagnostic("MF1003", displayFile(cwd, u.path), START, `cannot read the folder: ${u.reason}`),
  );
  if (found.files.length === 0 && found.unreadable.length === 0) {
    diagnostics.push(createDiagnostic("MF1002", displayFile(cwd, dir), START, `no manifests (*.yaml, *.yml) under ${displayFile(cwd, dir)}`));
  }
  const sources: ManifestSource[] = [];
  // Only files inside the manifests folder are read: a link out of it (to /proc/self/environ, say)
  // would have its lines echoed in diagnostics.
  const root = await realpath(dir).catch(() => dir);
  const inside = (real: string): boolean => real === root || real.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
  // Read side by side, kept in the order found: one by one, each file's two system calls each waited a
  // turn of the event loop.
  const read: ({ file: string; text: string; diagnostic?: undefined } | { file: string; text?: undefined; diagnostic: Diagnostic })[] = [];
  await forEachLimit(found.files, FILES_AT_ONCE, async (path, index) => {
    const file = displayFile(cwd, path);
    const real = await realpath(path).catch(() => undefined);
    if (real !== undefined && !inside(real)) {
      read[index] = {
        file,
        diagnostic: createDiagnostic(
          "MF1003",
          file,
          START,
          "cannot read the file: it is a link that leaves the manifests folder; only files inside it are read",
        ),
      };
      return;
    }
    const result = await readManifestFile(path, maxFileBytes);
    read[index] = result.ok ? { file, text: result.text } : { file, diagnostic: createDiagnostic(result.code, file, result.position, result.message) };
  });
  for (const r of read) {
    if (r.text !== undefined) sources.push({ file: r.file, text: r.text });
    else diagnostics.push(r.diagnostic);
  }
  await parsed?.prime(sources.map((s) => ({ file: s.file, text: manifestText(s.text) })));
  // Files a manifest names beside it (an agent's skill folders) are read through the same cwd.
  return assemble(sources, { crossFile: true, features: AGENT_FEATURES, diagnostics, files: createManifestFiles(cwd), ...(parsed && { parsed }) });
}
