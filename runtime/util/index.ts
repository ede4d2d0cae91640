/**
 * Small helpers with no dependencies, shared by several runtime folders. Nothing here imports another
 * runtime folder, so any folder may import this one without making a cycle.
 */
export { checkInteger, integerFromEnv, type IntegerRange } from "./check-integer.js";
export { envFlag } from "./env-flag.js";
export { heapBytes } from "./heap-bytes.js";
export { isThenable } from "./is-thenable.js";
export { sleep } from "./sleep.js";
export { lazyAjv, requireAjv } from "./lazy-ajv.js";
export { loadOnce, type LoadOnce } from "./load-once.js";
export type { Abortable, AbortSource } from "./abortable.js";
export { checkHandlerKeys, handlerAt, type HandlerMapRules } from "./handlers.js";
export { createGate, type Gate } from "./gate.js";
export { createBackoff, type Backoff, type BackoffOptions } from "./backoff.js";
export { holdOpen, systemClock, sleepOn, type Clock, type ClockTimer } from "./clock.js";
export { createSharedPool, type SharedLease, type SharedPool } from "./shared-pool.js";
export { closeLeasedClient, createClientLease, type ClientLease } from "./client-lease.js";
