/**
 * Human-in-the-loop approval (issue 16). So far: the checkpoint store (port, memory and Redis
 * adapters, the table of legal status changes); the policy, the expiry processor, resume and the
 * `/hitl/command` route build on it.
 */
export * from "./store/index.js";
export { createExpiryProcessor, type ExpiryPassResult, type ExpiryProcessor, type ExpiryProcessorOptions } from "./expiry.js";
export type { HitlSpec, RawHitl } from "./manifest.js";
export { createStepGate, DEFAULT_HITL_EXPIRY_MS, resolveHitlPolicy, sensitiveMatches, type GateAnswer, type HitlPolicy } from "./policy.js";
