import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, readFile, rm, rmdir, unlink } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { GENERATED_MARKER } from "./emit/header.js";

/** Every file (and link) under `dir`, as `/`-separated paths relative to it; empty when the folder is missing. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [];
    throw e;
  });
  return entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
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
  /** Paths that are, or lie under, a symbolic link: what they point at is outside gen's control. */
  readonly linked: string[];
}

/** The first part of `path` (itself included) under `dir` that is a symbolic link, or undefined. */
async function linkOnPath(dir: string, path: string): Promise<string | undefined> {
  const parts = path.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const part = parts.slice(0, i).join("/");
    const info = await lstat(join(dir, part)).catch(() => undefined);
    if (info === undefined) return undefined;
    if (info.isSymbolicLink()) return part;
  }
  return undefined;
}

/** Byte comparison of what gen would write against what is on disk; a link is never read through. */
export async function compareFolder(dir: string, expected: ReadonlyMap<string, string>): Promise<Drift> {
  const onDisk = await listFiles(dir);
  // A link where gen wants a folder is reported (and replaced) through the files under it, not as extra.
  const folders = new Set(
    [...expected.keys()].flatMap((p) =>
      p
        .split("/")
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join("/")),
    ),
  );
  const drift: Drift = { stale: [], missing: [], extra: onDisk.filter((p) => !expected.has(p) && !folders.has(p)), linked: [] };
  for (const [path, text] of expected) {
    if ((await linkOnPath(dir, path)) !== undefined) {
      drift.linked.push(path);
      continue;
    }
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

/**
 * Writes one file as a regular file inside `dir`: a link on the way (the file or a folder above it) is
 * removed first (the link, never what it points at), and O_NOFOLLOW refuses a link that appears meanwhile.
 */
async function writeInside(dir: string, path: string, text: string): Promise<void> {
  for (let link = await linkOnPath(dir, path); link !== undefined; link = await linkOnPath(dir, path)) await unlink(join(dir, link));
  const target = join(dir, path);
  await mkdir(dirname(target), { recursive: true });
  const handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

/** Writes changed files only (so mtimes and watchers stay quiet), removes extra ones and emptied folders. */
export async function syncFolder(dir: string, expected: ReadonlyMap<string, string>): Promise<WriteResult> {
  const drift = await compareFolder(dir, expected);
  for (const path of [...drift.stale, ...drift.missing, ...drift.linked]) await writeInside(dir, path, expected.get(path)!);
  for (const path of drift.extra) {
    // A link is removed as a link; nothing is ever removed through one.
    const link = await linkOnPath(dir, path);
    if (link !== undefined && link !== path) continue;
    await rm(join(dir, path));
    await removeEmptyParents(dir, dirname(join(dir, path)));
  }
  const written = drift.stale.length + drift.missing.length + drift.linked.length;
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
