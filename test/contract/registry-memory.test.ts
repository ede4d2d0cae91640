import { createMemoryRegistry, createMemoryRegistryState } from "../../runtime/discovery/index.js";
import { registryCases } from "./registry.cases.js";

registryCases("memory", async () => {
  const state = createMemoryRegistryState();
  return {
    registry: createMemoryRegistry({ state }),
    indexMembers: async (index) => [...(state.indexes.get(index) ?? [])].sort(),
    close: async () => undefined,
  };
});
