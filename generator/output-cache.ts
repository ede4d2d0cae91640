/**
 * gen's content-hash cache, inside its output folder: `.manifold-cache/files.json` holds the SHA-256 of
 * every file gen last wrote or found equal, and the cache file's own mtime is the moment that was true.
 * A generated file whose hash gen would write again, whose size is the same and whose mtime is older
 * than the cache is unchanged without reading it (git's index does the same with its racy-clean rule: a
 * file touched at or after the cache's moment is read). The folder ignores itself in git (`*`), and its
 * content names no time or machine, so two gens of the same manifests write the same bytes. `--check`
 * never trusts it: it compares bytes.
 */
import { createHash } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";

export const CACHE_FOLDER = ".manifold-cache";
export const CACHE_FILE = `${CACHE_FOLDER}/files.json`;
const CACHE_VERSION = 1;

/** The cache's files, as gen writes them: the hashes and the folder's self-ignoring .gitignore. */
export function cacheFiles(hashes: ReadonlyMap<string, string>): Map<string, string> {
  const files = Object.fromEntries([...hashes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return new Map([
    [`${CACHE_FOLDER}/.gitignore`, "# gen's cache of its own output (see docs/cli.md): never committed\n*\n"],
    [CACHE_FILE, `${JSON.stringify({ version: CACHE_VERSION, files })}\n`],
  ]);
}

export function contentHash(text: string): string {
  return createHash("sha256").update(text).digest("base64");
}

export interface OutputCache {
  /** When the hashes were last true of the folder. */
  readonly mtimeMs: number;
  readonly hashes: ReadonlyMap<string, string>;
}

/**
 * The text and mtime of the cache file `file` (a path under CACHE_FOLDER) in output folder `dir`; undefined
 * when the file or the cache folder is missing or is not a plain file and folder (a link is never followed).
 */
export async function readCacheFile(dir: string, file: string): Promise<{ readonly text: string; readonly mtimeMs: number } | undefined> {
  const path = join(dir, file);
  const [folder, info] = await Promise.all([lstat(join(dir, CACHE_FOLDER)).catch(() => undefined), lstat(path).catch(() => undefined)]);
  if (folder?.isDirectory() !== true || info?.isFile() !== true) return undefined;
  const text = await readFile(path, "utf8").catch(() => undefined);
  return text === undefined ? undefined : { text, mtimeMs: info.mtimeMs };
}

/** The cache of `dir`, or undefined when it is missing, a link, or not what gen writes (then every file is read). */
export async function readCache(dir: string): Promise<OutputCache | undefined> {
  const cache = await readCacheFile(dir, CACHE_FILE);
  if (cache === undefined) return undefined;
  const { text, mtimeMs } = cache;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { version, files } = parsed as { version?: unknown; files?: unknown };
  if (version !== CACHE_VERSION || typeof files !== "object" || files === null || Array.isArray(files)) return undefined;
  const hashes = new Map<string, string>();
  for (const [file, hash] of Object.entries(files)) {
    if (typeof hash !== "string") return undefined;
    hashes.set(file, hash);
  }
  return { mtimeMs, hashes };
}
