import { mkdir, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { GENERATED_MARKER } from "./emit/header.js";

/** Every file under `dir`, as `/`-separated paths relative to it; empty when the folder is missing. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [];
    throw e;
  });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort();
}

async function readOrUndefined(path: string): Promise<string | undefined> {
  return readFile(path, "utf8").catch(() => undefined);
}

export interface Drift {
  readonly stale: string[];
  readonly missing: string[];
  readonly extra: string[];
}

/** Byte comparison of what gen would write against what is on disk. */
export async function compareFolder(dir: string, expected: ReadonlyMap<string, string>): Promise<Drift> {
  const onDisk = await listFiles(dir);
  const drift: Drift = { stale: [], missing: [], extra: onDisk.filter((p) => !expected.has(p)) };
  for (const [path, text] of expected) {
    const current = await readOrUndefined(join(dir, path));
    if (current === undefined) drift.missing.push(path);
    else if (current !== text) drift.stale.push(path);
  }
  return drift;
}

/**
 * gen owns its output folder and prunes what it did not write, which is only safe in a folder it
 * created: one that is new, empty, or holds its README marker. Returns a reason when it is not.
 */
export async function refuseToOwn(dir: string): Promise<string | undefined> {
  const files = await listFiles(dir);
  if (files.length === 0) return undefined;
  const readme = await readOrUndefined(join(dir, "README.md"));
  if (readme?.includes(GENERATED_MARKER)) return undefined;
  return `${dir} holds files manifold did not write (no generated README.md); choose an empty or generated folder`;
}

export interface WriteResult {
  readonly written: number;
  readonly unchanged: number;
  readonly removed: number;
  /** The files removed, relative to the folder. */
  readonly removedFiles: readonly string[];
}

/** Writes changed files only (so mtimes and watchers stay quiet), removes extra ones and emptied folders. */
export async function syncFolder(dir: string, expected: ReadonlyMap<string, string>): Promise<WriteResult> {
  const drift = await compareFolder(dir, expected);
  for (const path of [...drift.stale, ...drift.missing]) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, expected.get(path)!);
  }
  for (const path of drift.extra) {
    await rm(join(dir, path));
    await removeEmptyParents(dir, dirname(join(dir, path)));
  }
  const written = drift.stale.length + drift.missing.length;
  return { written, unchanged: expected.size - written, removed: drift.extra.length, removedFiles: drift.extra };
}

async function removeEmptyParents(root: string, dir: string): Promise<void> {
  while (dir.startsWith(root) && dir !== root) {
    const ok = await rmdir(dir).then(
      () => true,
      () => false,
    );
    if (!ok) return;
    dir = dirname(dir);
  }
}
