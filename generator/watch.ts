/**
 * `manifold gen --watch`: one normal gen, then another whenever a manifest is saved, added or removed.
 *
 * Each folder the loader reads gets its own (non-recursive) watcher rather than one
 * `fs.watch(dir, { recursive: true })`: on Linux, node 20 builds the recursive watcher from one inotify
 * watch per file, and once an editor saves a file by renaming a temporary over it (vim, most IDEs) that
 * file's watch is left on the old inode and later saves go unseen. A folder's watcher reports every
 * entry written, created, renamed or removed in it, however the editor saves.
 *
 * Skill folders (holding a `SKILL.md`) under the manifests folder are watched too, and there every
 * file counts: gen embeds a skill's instructions and resources. Skill folders an agent lists from
 * outside the manifests folder are not watched.
 *
 * Runs never overlap: the loop awaits each generation, and changes that arrive meanwhile are collected
 * and picked up by the next turn (after the same debounce), so a save during a run gives exactly one
 * more run.
 */
import { type FSWatcher, watch } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { basename, join, relative, resolve, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { CliIo } from "./cli-io.js";
import { isManifestName, SKILL_FILE } from "./find-files.js";

/** Quiet time after the last event before regenerating: one save, or a `git checkout`, is a burst of events. */
export const WATCH_DEBOUNCE_MS = 100;

/** How often a manifests folder that has gone is looked for again. */
export const WATCH_VANISHED_POLL_MS = 500;

export interface WatchOptions {
  /** The manifests folder as the user gave it: messages name changed files under it the same way. */
  readonly manifestsDir: string;
  /** One generation, which prints its own diagnostics or summary; resolves to gen's exit code. */
  readonly regenerate: () => Promise<number>;
  readonly io: Pick<CliIo, "err">;
  /** Aborting stops the watch: a run under way finishes first (the output folder is never left half-written), then 0. */
  readonly signal?: AbortSignal;
  readonly debounceMs?: number;
  readonly vanishedPollMs?: number;
}

/**
 * Runs gen, then watches. Resolves to 2 when the first run is a usage error (no manifests folder, an
 * output folder gen does not own, --deploy without a deployment manifest): editing manifests will not
 * mend those, so there is nothing to watch for. Otherwise it resolves to 0 once `signal` aborts; errors
 * in the manifests are printed and the watch goes on, since fixing them is what the user is about to do.
 *
 * A manifests folder that vanishes while watched (a branch switch, a `rm -rf` and restore, a rename)
 * is reported, then waited for: it is looked for every `vanishedPollMs` and regenerated from when it
 * is back. Exiting instead would end the session on a transient state the user is likely to undo.
 */
export async function watchManifests({
  manifestsDir,
  regenerate,
  io,
  signal,
  debounceMs = WATCH_DEBOUNCE_MS,
  vanishedPollMs = WATCH_VANISHED_POLL_MS,
}: WatchOptions): Promise<number> {
  const root = resolve(manifestsDir);
  const changed = new Set<string>();
  let lastChangeAt = 0;
  let wake: (() => void) | undefined;
  const folders = createFolderWatcher({
    root,
    onChange: (path) => {
      changed.add(path);
      lastChangeAt = performance.now();
      wake?.();
    },
  });
  const stopped = () => signal?.aborted === true;
  const nextChange = async (): Promise<void> => {
    if (changed.size > 0 || stopped()) return;
    const woken = new Promise<void>((done) => {
      wake = done;
    });
    const onAbort = () => wake?.();
    signal?.addEventListener("abort", onAbort, { once: true });
    await woken;
    // Removed each turn: a long session would otherwise pile listeners on the signal.
    signal?.removeEventListener("abort", onAbort);
    wake = undefined;
  };
  try {
    // Watching starts before the first run so that a save made while it runs is not lost.
    await folders.sync();
    if ((await regenerate()) === 2) return 2;
    io.err(`manifold: watching ${manifestsDir} for changes (Ctrl-C to stop)\n`);
    while (!stopped()) {
      await nextChange();
      // Trailing debounce: wait until the events have been quiet for debounceMs.
      for (let quiet = performance.now() - lastChangeAt; !stopped() && quiet < debounceMs; quiet = performance.now() - lastChangeAt) {
        await pause(debounceMs - quiet, signal);
      }
      if (stopped()) break;
      const batch = [...changed];
      changed.clear();
      if (await folders.sync()) {
        io.err(`manifold: change in ${describeChanges(batch, root, manifestsDir)}, regenerating\n`);
      } else {
        io.err(`manifold: manifests folder ${manifestsDir} is gone; waiting for it to come back (Ctrl-C to stop)\n`);
        while (!stopped() && !(await folders.sync())) await pause(vanishedPollMs, signal);
        if (stopped()) break;
        // The run about to start reads everything the folder's return brought.
        changed.clear();
        io.err(`manifold: manifests folder ${manifestsDir} is back, regenerating\n`);
      }
      await regenerate();
    }
    return 0;
  } finally {
    folders.close();
  }
}

/**
 * `watchManifests` as the CLI runs it: Ctrl-C (SIGINT) or SIGTERM stops the watch and the command
 * exits 0. The handlers are removed at the first signal, so a second Ctrl-C during a long run ends the
 * process at once (node's default).
 */
export async function watchUntilInterrupted(options: Omit<WatchOptions, "signal">): Promise<number> {
  const controller = new AbortController();
  const stop = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    controller.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    return await watchManifests({ ...options, signal: controller.signal });
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

/** Resolves after `ms`, or as soon as `signal` aborts (never rejects: stopping is not an error here). */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  await sleep(Math.max(0, ms), undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
}

/** `manifests/x.yaml`, or `manifests/x.yaml and 2 more`: the first changed path as the user named the folder. */
function describeChanges(paths: readonly string[], root: string, manifestsDir: string): string {
  const named = paths.map((path) => join(manifestsDir, relative(root, path)).split(sep).join("/")).sort();
  const first = named[0] ?? manifestsDir;
  return named.length > 1 ? `${first} and ${named.length - 1} more` : first;
}

interface FolderWatcher {
  /** Watches every folder under the root the loader reads, drops those gone or replaced; false when the root is gone. */
  readonly sync: () => Promise<boolean>;
  readonly close: () => void;
}

interface FolderWatcherOptions {
  readonly root: string;
  /** Called with the path of an entry whose change may alter gen's output. */
  readonly onChange: (path: string) => void;
}

function createFolderWatcher({ root, onChange }: FolderWatcherOptions): FolderWatcher {
  // Keyed by path; `id` (device and inode) tells a folder replaced under the same name from the one watched.
  const watched = new Map<string, { readonly watcher: FSWatcher; readonly id: string }>();

  const unwatch = (path: string) => {
    watched.get(path)?.watcher.close();
    watched.delete(path);
  };

  const watchFolder = (folder: string, inSkill: boolean): FSWatcher => {
    const watcher = watch(folder, { persistent: true }, (_event, name) => {
      // No name: the platform could not say what changed, so anything may have.
      if (name === null) return onChange(folder);
      const path = join(folder, name);
      // A kind: mcp manifest's lock file is an input too (a `--refresh-mcp` elsewhere, a pulled commit).
      if (isManifestName(name) || watched.has(path) || name === SKILL_FILE || name.endsWith(".mcp-lock.json")) return onChange(path);
      // In a skill every file is content (hidden ones, editors' swap files, are not read).
      if (inSkill && !name.startsWith(".")) return onChange(path);
      // The folder's own name: it was removed or renamed (inotify reports that on the folder itself).
      if (name === basename(folder)) return onChange(folder);
      // A folder made or moved in here may hold manifests; files of other kinds (swap files) are not read.
      if (!isSkippedFolder(name)) {
        stat(path).then(
          (s) => s.isDirectory() && onChange(path),
          () => undefined,
        );
      }
    });
    // Windows reports a removed folder as an error; without a listener an 'error' would end the process.
    watcher.on("error", () => {
      unwatch(folder);
      onChange(folder);
    });
    return watcher;
  };

  return {
    async sync() {
      const now = await listFolders(root);
      for (const [path, { id }] of [...watched]) if (now?.get(path) !== id) unwatch(path);
      if (now === undefined) return false;
      for (const [path, id] of now) {
        if (watched.has(path)) continue;
        try {
          watched.set(path, { watcher: watchFolder(path, id.endsWith(SKILL_ID_SUFFIX)), id });
        } catch {
          // Gone since it was listed: its parent's watcher has reported that, and the next sync settles it.
        }
      }
      return true;
    },
    close() {
      for (const path of [...watched.keys()]) unwatch(path);
    },
  };
}

/** The loader's rule (find-files.ts): folders named `node_modules` or starting with `.` hold no manifests. */
function isSkippedFolder(name: string): boolean {
  return name === "node_modules" || name.startsWith(".");
}

/** Marks the id of a folder inside a skill: a folder that becomes one (or stops being one) is watched anew. */
const SKILL_ID_SUFFIX = ":skill";

/**
 * Every folder under `root` the loader reads (itself included), with its device and inode (and
 * whether it is in a skill folder); undefined when `root` is not a folder. Linked folders are followed
 * once, as the loader follows them.
 */
async function listFolders(root: string): Promise<Map<string, string> | undefined> {
  const folders = new Map<string, string>();
  const seen = new Set<string>();
  const visit = async (folder: string, inSkill: boolean): Promise<void> => {
    const info = await stat(folder).catch(() => undefined);
    const real = await realpath(folder).catch(() => undefined);
    if (info === undefined || !info.isDirectory() || real === undefined || seen.has(real)) return;
    seen.add(real);
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    const skill = inSkill || (folder !== root && entries.some((entry) => entry.name === SKILL_FILE));
    folders.set(folder, `${info.dev}:${info.ino}${skill ? SKILL_ID_SUFFIX : ""}`);
    for (const entry of entries) {
      if ((entry.isDirectory() || entry.isSymbolicLink()) && !isSkippedFolder(entry.name)) await visit(join(folder, entry.name), skill);
    }
  };
  await visit(root, false);
  return folders.has(root) ? folders : undefined;
}
