/**
 * Scheduled execution: the scheduler tool (`serveScheduler`, `manifold scheduler`), its firing loop,
 * the executor, and the agent side, `POST /api/v1/scheduled`.
 */
export { scheduledFeature, type ScheduledServeOptions } from "./feature.js";
export { createScheduledExtension, type ScheduledExtensionOptions } from "./scheduled-route.js";
export { type ClaimState, createMemoryRunClaims, createRedisRunClaims, createRunClaims, type RunClaims } from "./run-claims.js";
export {
  SCHEDULED_EXECUTOR_QUEUE,
  SCHEDULED_PATH,
  SCHEDULED_TASK_TYPE,
  type ScheduledContext,
  type ScheduledHandler,
  type ScheduledRequest,
  type ScheduledResponse,
  type ScheduledSkip,
  type ScheduledTaskInput,
} from "./wire.js";
export { createFiring, type Firing, type FiringOptions } from "./firing.js";
export { MAX_HORIZON_MS, nextCronMs, readTiming, type Timing, type TimingFields } from "./timing.js";
export { createSchedulerHandlers, MAX_SCHEDULE_BYTES, type SchedulerHandlers, type SchedulerToolOptions } from "./tool.js";
export * from "./store/index.js";
export { serveScheduler, type RunningScheduler, type SchedulerOptions } from "./serve-scheduler.js";
export { createScheduledExecutor, type ScheduledExecutor, type ScheduledExecutorOptions } from "./executor.js";
export {
  createDeadLetters,
  DEFAULT_MAX_DEAD_LETTERS,
  replayDeadLetter,
  type DeadLetter,
  type DeadLetterReason,
  type DeadLetters,
} from "./dead-letters.js";
export { readExecutorSettings, type ExecutorSettings } from "./settings.js";
