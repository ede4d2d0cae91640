import type { Clock } from "../util/index.js";
import type { SkillStore } from "./store/types.js";

/** The skills feature's part of an agent's `serve()` options. */
export interface SkillsServeOptions {
  readonly skills?: {
    /** The skill registry the agent publishes its bundled skills to and draws from. @defaultValue Redis when configured, else in memory */
    readonly store?: SkillStore;
    /** What the retries of an unreachable registry wait on. @defaultValue systemClock */
    readonly clock?: Clock;
  };
}
