/** The A2A feature's part of an agent's `serve()` options. */

/** The bounds of the A2A tasks this process keeps. */
export interface TaskStoreOptions {
  /** Most tasks kept; the one changed longest ago goes first. @defaultValue 1000 */
  readonly maxTasks?: number;
  /** A task is forgotten this long after its last change. @defaultValue one hour */
  readonly ttlMs?: number;
  /** The clock of those ages (tests pass their own). @defaultValue Date.now */
  readonly now?: () => number;
}

export interface A2aSettings extends TaskStoreOptions {
  /** @defaultValue `MANIFOLD_A2A_ENABLED`, else the manifest's `a2a` */
  readonly enabled?: boolean;
}

export interface A2aServeOptions {
  /** Serve A2A (`true`/`false`), or its settings: the task bounds. @defaultValue `MANIFOLD_A2A_ENABLED`, else the manifest's `a2a` */
  readonly a2a?: boolean | A2aSettings;
}

/** The task bounds, checked: by the task store, and by the feature at start, before the store loads with the first request. */
export function checkTaskStoreOptions({ maxTasks, ttlMs }: TaskStoreOptions): void {
  if (maxTasks !== undefined && (!Number.isSafeInteger(maxTasks) || maxTasks < 1)) throw new RangeError("maxTasks must be a whole number, at least 1");
  if (ttlMs !== undefined && (!Number.isSafeInteger(ttlMs) || ttlMs < 1)) throw new RangeError("ttlMs must be a whole number of ms, at least 1");
}
