import type { CheckpointStore } from "./store/index.js";

/** The HITL feature's part of an agent's `serve()` options. */
export interface HitlServeOptions {
  readonly hitl?: {
    /** Where checkpoints live. @defaultValue `createCheckpointStore`: Redis when configured, else in memory */
    readonly store?: CheckpointStore;
    /** The expiry processor that applies default actions; `false` runs none in this process. @defaultValue on */
    readonly expiry?: false | { readonly intervalMs?: number };
    /** For tests: the clock of decisions and expiry. @defaultValue Date.now */
    readonly clock?: () => number;
  };
}
