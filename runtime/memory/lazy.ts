/**
 * The memory feature as a shell, for an agent that passes none of memory's parts: at start it reads the
 * variables the parts read (a bad value still fails start-up, naming it), serves `/memory/facts` through
 * a lazy extension, and gives the orchestrator and chat's turns stand-ins for the recall source, the
 * episodic source and the settled listener. The parts (stores, retriever, extraction, episodes) load with
 * the first request, plan or finished turn that needs them; a load that fails is reported there (a route
 * answers its error, a context source is logged and left out of that plan) and the next use tries again.
 * Episodic memory's passes are due one interval after start, as when built at start: that timer loads it too.
 */
import { createLazyExtension, type FeatureBuild, type FeatureServices, type LazyRoute } from "../feature/index.js";
import { llmDebugEnabled } from "../llm/index.js";
import { contextSourceOnFirstUse, type ContextSource } from "../orchestration/served.js";
import { resolveEpisodicSettings } from "./episodic/settings.js";
import type { MemoryParts } from "./extension.js";
import { vectorsWanted } from "./retrieval/vectors-env.js";
import type { MemoryServeOptions } from "./serve-options.js";
import { resolveMemorySettings, type MemorySettings } from "./settings.js";
import { userFactsTtlMs, userMaxFacts, userRecallBudgetBytes } from "./user/settings.js";

/** Every route the loaded user memory adds (routes.ts), in its order. */
export const MEMORY_ROUTES: readonly LazyRoute[] = [
  ["GET", "/memory/facts"],
  ["DELETE", "/memory/facts/:key"],
  ["DELETE", "/memory/facts"],
];

/** The stand-ins' names and budgets are the loaded sources' own: checked when the parts load. */
function checkSource(source: ContextSource | undefined, name: string, budgetBytes: number): void {
  if (source?.name !== name || source.budgetBytes !== budgetBytes)
    throw new Error(`memory: the loaded ${name} source is ${source?.name} with ${source?.budgetBytes} bytes, its stand-in ${budgetBytes}`);
}

export function createLazyMemory(options: MemoryServeOptions, services: FeatureServices, settings: MemorySettings): FeatureBuild {
  const { env } = services;
  const log = services.log("memory");
  // What building the parts reads from the environment, read now.
  if (settings.user) [userMaxFacts, userFactsTtlMs, vectorsWanted, llmDebugEnabled].forEach((read) => read(env));
  const userBudget = settings.user ? userRecallBudgetBytes(env) : 0;
  const episodic = settings.episodic ? resolveEpisodicSettings(env) : undefined;
  let parts: MemoryParts | undefined;
  let firstPassAt: number | undefined;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const lazy = createLazyExtension({
    name: "memory",
    routes: settings.user ? MEMORY_ROUTES : [],
    load: async () => {
      const { buildMemoryParts } = await import("./extension.js");
      const built = buildMemoryParts(options, services, settings, firstPassAt);
      if (settings.user) checkSource(built.user?.source, "user_memory", userBudget);
      if (episodic !== undefined) checkSource(built.episodic?.source, "episodic", episodic.budgetBytes);
      parts = built;
      return built.extension;
    },
  });
  const loaded = async (): Promise<MemoryParts> => {
    await lazy.loaded();
    return parts!;
  };
  const { orchestrator } = services.orchestration;
  if (settings.user) orchestrator.useContext(contextSourceOnFirstUse("user_memory", userBudget, async () => (await loaded()).user!.source));
  if (episodic !== undefined) {
    orchestrator.useContext(contextSourceOnFirstUse("episodic", episodic.budgetBytes, async () => (await loaded()).episodic!.source));
    // A run settling once the agent stops is not recorded, as the loaded listener does.
    orchestrator.onSettled((run) => (stopped ? undefined : loaded().then((loadedParts) => loadedParts.episodic!.onSettled(run))));
  }
  const unsubscribe = !settings.user
    ? undefined
    : services.events.on("chat.turn_completed", (turn) => {
        if (stopped) return;
        loaded().then(
          (loadedParts) => loadedParts.user!.onTurn(turn),
          (error: unknown) => log.warn("user memory failed to load; a turn was not looked at", { error, request_id: turn.request_id }),
        );
      });
  return {
    extension: {
      ...lazy.extension,
      async start(running) {
        if (episodic !== undefined) {
          firstPassAt = Date.now() + episodic.intervalMs;
          timer = setTimeout(() => {
            if (!stopped) loaded().catch((error: unknown) => log.warn("episodic memory failed to load for its passes", { error }));
          }, episodic.intervalMs);
          timer.unref();
        }
        await lazy.extension.start?.(running);
      },
      async stop(deadlineMs) {
        stopped = true;
        clearTimeout(timer);
        unsubscribe?.();
        await lazy.extension.stop?.(deadlineMs);
      },
    },
  };
}

/**
 * The memory feature built: nothing when both memories are off; the memories built at start for a caller that
 * passes a part of its own (a store, a clock, a callback to be told the memories); otherwise the shell.
 */
export async function buildMemory(options: MemoryServeOptions, services: FeatureServices): Promise<FeatureBuild> {
  const settings = resolveMemorySettings(services.agent.memory, services.spec.name, services.env);
  if (!settings.user && !settings.episodic) return { extension: { name: "memory" } };
  const given = options.memory ?? {};
  if (Object.entries(given).some(([key, value]) => key !== "extraction" && value !== undefined)) {
    const { createMemoryExtension } = await import("./extension.js");
    return createMemoryExtension(options, services);
  }
  return createLazyMemory(options, services, settings);
}
