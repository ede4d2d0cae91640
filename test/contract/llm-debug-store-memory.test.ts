import { createMemoryLlmDebugStore } from "../../runtime/llm/index.js";
import { llmDebugStoreCases } from "./llm-debug-store.cases.js";

llmDebugStoreCases("memory", async (options) => createMemoryLlmDebugStore(options));
