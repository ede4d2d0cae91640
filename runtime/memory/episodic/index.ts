/**
 * Episodic memory per agent domain: each run recorded as an episode, summarised, compacted into the
 * domain's activity digest, read back for planning; reflection and sweep passes in the background.
 */
export * from "./store/index.js";
