import { randomBytes } from "node:crypto";
import { createScheduleStore } from "../../runtime/scheduling/index.js";
import { createStore } from "../../runtime/store/index.js";
import { scheduleStoreCases } from "./schedules.cases.js";

scheduleStoreCases("memory", async (options) => {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `m${randomBytes(4).toString("hex")}` }, log: () => undefined });
  const schedules = createScheduleStore({ store, env: {}, ...options });
  if (schedules.kind !== "memory") throw new Error("expected the memory adapter");
  return { schedules, store };
});
