import { createMemoryExecutionStore } from "../../runtime/orchestration/index.js";
import { executionStoreCases } from "./execution-store.cases.js";

executionStoreCases("memory", async (options) => createMemoryExecutionStore(options));
