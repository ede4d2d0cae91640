/**
 * The memory feature's running part: which memories are on (settings.ts). For user memory: the fact
 * store, the retriever, the recall source, the extraction of chat's finished turns and the
 * `/memory/facts` routes. For episodic memory: its context source, its settled listener and its
 * reflection and sweep passes, started and stopped with the agent. What it created it closes on stop,
 * after the work in flight is aborted. `buildMemoryParts` makes the parts; the wiring into the
 * orchestrator and the feature events is `createMemoryExtension`'s (at start) or the shell's (lazy.ts).
 */
import type { ComponentExtension } from "../component/index.js";
import type { FeatureBuild, FeatureServices } from "../feature/index.js";
import { createLlmDebugStore, llmDebugEnabled, type LlmDebugStore } from "../llm/index.js";
import { createCallRecorder, type ContextSource, type SettledListener } from "../orchestration/served.js";
import { createEpisodicMemory } from "./episodic/index.js";
import { createRetriever } from "./retrieval/index.js";
import { addMemoryRoutes } from "./routes.js";
import type { MemoryServeOptions } from "./serve-options.js";
import { resolveMemorySettings, type MemorySettings } from "./settings.js";
import { createUserMemory, type ChatTurn, type UserMemory } from "./user/index.js";
import { userMaxFacts, userRecallBudgetBytes } from "./user/settings.js";
import { createFactStore } from "./user/store/index.js";

export { USER_MEMORY_BUDGET_ENV } from "./user/settings.js";

type Options = NonNullable<MemoryServeOptions["memory"]>;

/** The memories built, not yet wired: what the orchestrator and chat's turns are given, and one extension. */
export interface MemoryParts {
  readonly user?: { readonly source: ContextSource; onTurn(turn: ChatTurn): void };
  readonly episodic?: { readonly source: ContextSource; readonly onSettled: SettledListener };
  /** The `/memory/facts` routes (user memory), starts the passes (episodic), closes what the parts created. */
  readonly extension: ComponentExtension;
}

/** User memory's part: built only when it is on; its closing is part of the extension's stop. */
function userMemoryPart(options: Options, services: FeatureServices): { extension: ComponentExtension; memory: UserMemory } {
  const { spec, env, llm } = services;
  const log = services.log("memory");
  const maxFacts = userMaxFacts(env);
  const facts = options.facts ?? createFactStore({ env, maxFacts });
  const retriever = options.retriever ?? createRetriever({ ...(llm === undefined ? {} : { provider: llm }), env, log });
  const debug: LlmDebugStore | undefined =
    options.llmDebug === false ? undefined : (options.llmDebug ?? (llmDebugEnabled(env) ? createLlmDebugStore({ env }) : undefined));
  if (llm === undefined) log.info("user memory: no language model, so nothing is extracted from chat turns; stored facts are still recalled");
  const memory = createUserMemory({
    facts,
    retriever,
    llm,
    recorder: (requestId) => (debug === undefined ? undefined : createCallRecorder(debug, { requestId, component: spec.name }, log)),
    log,
    ...(options.clock === undefined ? {} : { now: () => options.clock!.now() }),
    maxFacts,
    budgetBytes: userRecallBudgetBytes(env),
    ...(options.extraction?.concurrency === undefined ? {} : { concurrency: options.extraction.concurrency }),
    ...(options.extraction?.queueLimit === undefined ? {} : { queueLimit: options.extraction.queueLimit }),
  });
  return {
    memory,
    extension: {
      name: "memory",
      routes(add) {
        addMemoryRoutes(add, { facts, memory });
      },
      async stop() {
        await memory.stop();
        if (options.retriever === undefined) await retriever.close();
        if (options.llmDebug === undefined) await debug?.close();
        if (options.facts === undefined) await facts.close();
      },
    },
  };
}

/**
 * The memories `settings` turns on, built. `firstPassAt` (clock time): when the first reflection and sweep
 * pass is due, for parts built after start (default one interval after their start).
 */
export function buildMemoryParts(
  { memory: options = {} }: MemoryServeOptions,
  services: FeatureServices,
  settings: MemorySettings,
  firstPassAt?: number,
): MemoryParts {
  const parts: ComponentExtension[] = [];
  let user: MemoryParts["user"];
  let episodic: MemoryParts["episodic"];
  if (settings.user) {
    const built = userMemoryPart(options, services);
    options.onUserMemory?.(built.memory);
    user = { source: built.memory.source, onTurn: (turn) => built.memory.onTurn(turn) };
    parts.push(built.extension);
  }
  if (settings.episodic) {
    const clock = options.clock;
    const memory = createEpisodicMemory({
      services,
      ...(options.episodes === undefined ? {} : { store: options.episodes }),
      ...(clock === undefined ? {} : { clock }),
    });
    options.onEpisodicMemory?.(memory);
    episodic = { source: memory.source, onSettled: memory.onSettled };
    const firstInMs = firstPassAt === undefined ? undefined : Math.max(0, firstPassAt - (clock?.now() ?? Date.now()));
    parts.push({ name: "episodic", start: () => memory.start(firstInMs), stop: () => memory.stop() });
  }
  return {
    ...(user === undefined ? {} : { user }),
    ...(episodic === undefined ? {} : { episodic }),
    extension: {
      name: "memory",
      routes(add, context) {
        for (const part of parts) part.routes?.(add, context);
      },
      async start(running) {
        for (const part of parts) await part.start?.(running);
      },
      async stop(deadlineMs) {
        for (const part of parts) await part.stop?.(deadlineMs);
      },
    },
  };
}

/** The memories built and wired at start: recall and episodes into the orchestrator, chat's turns into extraction. */
export async function createMemoryExtension(options: MemoryServeOptions, services: FeatureServices): Promise<FeatureBuild> {
  const settings = resolveMemorySettings(services.agent.memory, services.spec.name, services.env);
  const { user, episodic, extension } = buildMemoryParts(options, services, settings);
  const { orchestrator } = services.orchestration;
  if (user !== undefined) orchestrator.useContext(user.source);
  if (episodic !== undefined) {
    orchestrator.useContext(episodic.source);
    orchestrator.onSettled(episodic.onSettled);
  }
  const unsubscribe = user === undefined ? undefined : services.events.on("chat.turn_completed", (turn) => user.onTurn(turn));
  return {
    extension: {
      ...extension,
      async stop(deadlineMs) {
        unsubscribe?.();
        await extension.stop?.(deadlineMs);
      },
    },
  };
}
