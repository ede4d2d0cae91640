/**
 * gen's one contact with the outside, for every kind of remote component (`kind: mcp` servers,
 * `kind: a2a` agents): the lock files beside their manifests. Plain `gen` fetches a lock that is
 * missing and never touches one that is there (offline from then on); a refresh fetches every remote
 * again and rewrites its lock; `--check` writes nothing (a missing lock stays the loader's
 * diagnostic), and `--check` with a refresh compares the live snapshot with the lock by hash.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Diagnostic } from "../runtime/manifest/index.js";

export interface LockOptions {
  /** The project root: what every path is relative to. */
  readonly root: string;
  readonly check: boolean;
  readonly refresh: boolean;
  /** Where token (and stdio `env`) variables are read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface LockResult {
  readonly diagnostics: readonly Diagnostic[];
  /** Lock files written (paths relative to the root). */
  readonly written: readonly string[];
}

/** A remote's manifest as the lock step needs it (McpManifestInfo, A2aManifestInfo). */
export interface RemoteEntry {
  readonly lockFile: string;
  readonly lock: "ok" | "missing" | "invalid";
}

/** What differs between one kind of remote: how to fetch its snapshot and what to say about it. */
export interface RemoteKind<E extends RemoteEntry, L extends { readonly hash: string }> {
  fetch(entry: E): Promise<{ readonly lock: L } | { readonly error: string }>;
  format(lock: L): string;
  unreachable(entry: E, error: string): Diagnostic;
  /** The drift diagnostic; `locked` is the lock file as parsed. */
  changed(entry: E, locked: Readonly<Record<string, unknown>>, live: L): Diagnostic;
}

/** `added: a; removed: b; changed: c` between the locked items and the live ones, by key. */
export function describeChanges<T>(locked: readonly T[], live: readonly T[], keyOf: (item: T) => string, nothing: string): string {
  const before = new Map(locked.map((t) => [keyOf(t), JSON.stringify(t)]));
  const after = new Map(live.map((t) => [keyOf(t), JSON.stringify(t)]));
  const added = [...after.keys()].filter((n) => !before.has(n));
  const removed = [...before.keys()].filter((n) => !after.has(n));
  const changed = [...after.keys()].filter((n) => before.has(n) && before.get(n) !== after.get(n));
  const parts = [
    ...(added.length > 0 ? [`added: ${added.join(", ")}`] : []),
    ...(removed.length > 0 ? [`removed: ${removed.join(", ")}`] : []),
    ...(changed.length > 0 ? [`changed: ${changed.join(", ")}`] : []),
  ];
  return parts.length === 0 ? nothing : parts.join("; ");
}

async function lockedJson(path: string): Promise<Readonly<Record<string, unknown>>> {
  try {
    const value: unknown = JSON.parse(await readFile(path, "utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Written whole or not at all: a temp file beside it, then a rename. */
async function writeLock(path: string, text: string): Promise<boolean> {
  const current = await readFile(path, "utf8").catch(() => undefined);
  if (current === text) return false;
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, path);
  return true;
}

/** Fetches, compares or writes the lock of every entry, as the flags say. */
export async function syncRemoteLocks<E extends RemoteEntry, L extends { readonly hash: string }>(
  entries: readonly E[],
  kind: RemoteKind<E, L>,
  { root, check, refresh }: Pick<LockOptions, "root" | "check" | "refresh">,
): Promise<LockResult> {
  const diagnostics: Diagnostic[] = [];
  const written: string[] = [];
  for (const entry of entries) {
    // Without a refresh a lock that is there is the truth, and --check fetches nothing.
    if (!refresh && (entry.lock !== "missing" || check)) continue;
    const fetched = await kind.fetch(entry);
    if ("error" in fetched) {
      diagnostics.push(kind.unreachable(entry, fetched.error));
      continue;
    }
    const path = join(root, entry.lockFile);
    if (check) {
      if (entry.lock !== "ok") continue; // The loader reports the missing or invalid lock.
      const locked = await lockedJson(path);
      // The loader accepted the lock, so its hash is its content's.
      if (locked["hash"] !== fetched.lock.hash) diagnostics.push(kind.changed(entry, locked, fetched.lock));
      continue;
    }
    if (await writeLock(path, kind.format(fetched.lock))) written.push(entry.lockFile);
  }
  return { diagnostics, written };
}
