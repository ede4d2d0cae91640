/**
 * The memory feature's running part: which memories are on (settings.ts). For user memory: the fact
 * store, the retriever, the recall source (`orchestrator.useContext`), the extraction queue fed by
 * chat's `chat.turn_completed`, and the `/memory/facts` routes. For episodic memory: its context
 * source, its settled listener (`orchestrator.onSettled`) and its reflection and sweep passes, started
 * and stopped with the agent. What it created it closes on stop, after the work in flight is aborted.
 */
import type { ComponentExtension } from "../component/index.js";
import type { FeatureBuild, FeatureServices } from "../feature/index.js";
import { createLlmDebugStore, llmDebugEnabled, type LlmDebugStore } from "../llm/index.js";
import { createCallRecorder } from "../orchestration/index.js";
import { integerFromEnv } from "../util/index.js";
import { createEpisodicMemory } from "./episodic/index.js";
import { createRetriever } from "./retrieval/index.js";
import { addMemoryRoutes } from "./routes.js";
import type { MemoryServeOptions } from "./serve-options.js";
import { resolveMemorySettings } from "./settings.js";
import { createUserMemory, DEFAULT_RECALL_BUDGET_BYTES, type UserMemory } from "./user/index.js";
import { createFactStore, DEFAULT_MAX_FACTS, USER_MEMORY_MAX_FACTS_ENV } from "./user/store/index.js";

export const USER_MEMORY_BUDGET_ENV = "MANIFOLD_USER_MEMORY_BUDGET_BYTES";

type Options = NonNullable<MemoryServeOptions["memory"]>;

/** User memory's part: built only when it is on; its closing is part of the extension's stop. */
function userMemoryPart(options: Options, services: FeatureServices): { extension: ComponentExtension; memory: UserMemory } {
  const { spec, env, llm, events, orchestration } = services;
  const log = services.log("memory");
  const maxFacts = integerFromEnv(env, USER_MEMORY_MAX_FACTS_ENV, DEFAULT_MAX_FACTS, { min: 1, max: 1_000_000 });
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
    budgetBytes: integerFromEnv(env, USER_MEMORY_BUDGET_ENV, DEFAULT_RECALL_BUDGET_BYTES, { min: 256, max: 65_536 }),
    ...(options.extraction?.concurrency === undefined ? {} : { concurrency: options.extraction.concurrency }),
    ...(options.extraction?.queueLimit === undefined ? {} : { queueLimit: options.extraction.queueLimit }),
  });
  orchestration.orchestrator.useContext(memory.source);
  const unsubscribe = events.on("chat.turn_completed", (turn) => memory.onTurn(turn));
  return {
    memory,
    extension: {
      name: "memory",
      routes(add) {
        addMemoryRoutes(add, { facts, memory });
      },
      async stop() {
        unsubscribe();
        await memory.stop();
        if (options.retriever === undefined) await retriever.close();
        if (options.llmDebug === undefined) await debug?.close();
        if (options.facts === undefined) await facts.close();
      },
    },
  };
}

export async function createMemoryExtension({ memory: options = {} }: MemoryServeOptions, services: FeatureServices): Promise<FeatureBuild> {
  const settings = resolveMemorySettings(services.agent.memory, services.spec.name, services.env);
  const parts: ComponentExtension[] = [];
  if (settings.user) {
    const user = userMemoryPart(options, services);
    options.onUserMemory?.(user.memory);
    parts.push(user.extension);
  }
  if (settings.episodic) {
    const episodic = createEpisodicMemory({
      services,
      ...(options.episodes === undefined ? {} : { store: options.episodes }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    services.orchestration.orchestrator.useContext(episodic.source);
    services.orchestration.orchestrator.onSettled(episodic.onSettled);
    options.onEpisodicMemory?.(episodic);
    parts.push({ name: "episodic", start: () => episodic.start(), stop: () => episodic.stop() });
  }
  return {
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
