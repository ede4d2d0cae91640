import { describeFsError } from "../runtime/manifest/index.js";
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";

export const MANIFEST_EXTENSIONS: readonly string[] = [".yaml", ".yml"];

/** The file that makes a folder an Agent Skills folder (its YAML files are resources, not manifests). */
export const SKILL_FILE = "SKILL.md";

export function isManifestName(name: string): boolean {
  return MANIFEST_EXTENSIONS.some((ext) => name.endsWith(ext));
}

export interface Unreadable {
  readonly path: string;
  readonly reason: string;
}

export type FoundFiles =
  | { readonly ok: true; readonly files: readonly string[]; readonly unreadable: readonly Unreadable[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Every `*.yaml`/`*.yml` path under `dir`, recursively, sorted by code unit so the order is the same on
 * every machine. Folders named `node_modules` or starting with `.` are skipped, and so are skill
 * folders (holding a `SKILL.md`): their files are a skill's resources, read through the agent that
 * lists the skill, never manifests. Linked folders are followed once (a link cycle ends). Anything
 * named like a manifest that is not a folder is returned, even when it is not a readable file: reading
 * it is what reports the problem.
 */
export async function findManifestFiles(dir: string): Promise<FoundFiles> {
  try {
    if (!(await stat(dir)).isDirectory()) return { ok: false, reason: "is not a folder" };
  } catch (error) {
    const missing = error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR");
    return { ok: false, reason: missing ? "does not exist" : `cannot be read: ${describeFsError(error)}` };
  }
  const found: Found = { files: [], unreadable: [], seen: new Set() };
  await collect(dir, found, true);
  return { ok: true, files: found.files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), unreadable: found.unreadable };
}

async function isFolder(entry: Dirent, path: string): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

interface Found {
  readonly files: string[];
  readonly unreadable: Unreadable[];
  readonly seen: Set<string>;
}

async function collect(dir: string, found: Found, root = false): Promise<void> {
  let entries: Dirent[];
  try {
    const real = await realpath(dir);
    if (found.seen.has(real)) return;
    found.seen.add(real);
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    found.unreadable.push({ path: dir, reason: describeFsError(error) });
    return;
  }
  if (!root && entries.some((entry) => entry.name === SKILL_FILE)) return;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (await isFolder(entry, path)) {
      if (entry.name !== "node_modules" && !entry.name.startsWith(".")) await collect(path, found);
    } else if (isManifestName(entry.name)) {
      found.files.push(path);
    }
  }
}
