import type { LlmDebugStore } from "../llm/index.js";
import type { Clock } from "../util/index.js";
import type { EpisodicMemory } from "./episodic/index.js";
import type { EpisodeStore } from "./episodic/store/types.js";
import type { Retriever } from "./retrieval/types.js";
import type { UserMemory } from "./user/index.js";
import type { FactStore } from "./user/store/types.js";

/** The memory feature's part of an agent's `serve()` options. */
export interface MemoryServeOptions {
  readonly memory?: {
    /** Where users' facts live. @defaultValue `createFactStore({ env })`: Redis when configured, else this process's memory */
    readonly facts?: FactStore;
    /** Where the domain's episodes live. @defaultValue episodic memory's own: Redis when configured, else this process's memory */
    readonly episodes?: EpisodeStore;
    /** Ranks a user's facts for recall. @defaultValue `createRetriever` over the agent's model (lexical unless `MANIFOLD_MEMORY_VECTORS=true`) */
    readonly retriever?: Retriever;
    /** Where the extraction and summary calls are recorded; `false` for nowhere. @defaultValue the LLM debug store when `MANIFOLD_LLM_DEBUG_ENABLED=true` */
    readonly llmDebug?: LlmDebugStore | false;
    /** Extractions running at once, and turns waiting at most (past it a turn is not looked at). @defaultValue 4 and 100 */
    readonly extraction?: { readonly concurrency?: number; readonly queueLimit?: number };
    /** For tests: the clock of facts' times, episodes' times and the reflection and sweep passes. @defaultValue the system clock */
    readonly clock?: Clock;
    /** For tests and embeddings: told the built user memory (`whenIdle()` resolves once no extraction waits or runs). */
    readonly onUserMemory?: (memory: UserMemory) => void;
    /** For tests and embeddings: told the built episodic memory. */
    readonly onEpisodicMemory?: (memory: EpisodicMemory) => void;
  };
}
