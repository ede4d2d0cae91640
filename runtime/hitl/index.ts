/**
 * Human-in-the-loop approval (issue 16): the checkpoint store (port, memory and Redis adapters, the
 * table of legal status changes), the policy, the orchestration interceptors that pause runs and
 * make checkpoints, the expiry processor, resume and the `/hitl` routes.
 */
export * from "./store/index.js";
export { createExpiryProcessor, type ExpiryPassResult, type ExpiryProcessor, type ExpiryProcessorOptions } from "./expiry.js";
export type { HitlSpec, RawHitl } from "./manifest.js";
export {
  createCheckpointInterceptor,
  createCorrectionsInterceptor,
  createErrorCheckpointInterceptor,
  createHitlInterceptors,
  createPlanApprovalInterceptor,
  createStepGateInterceptor,
  HITL_STATE,
  hitlState,
  type HitlState,
} from "./interceptors.js";
export { createCheckpointMaker, type CheckpointMaker, type Interrupted, type PausedRun, type StoredRequest } from "./checkpoint.js";
export { createStepGate, DEFAULT_HITL_EXPIRY_MS, resolveHitlPolicy, sensitiveMatches, type GateAnswer, type HitlPolicy } from "./policy.js";
