/**
 * Scheduled execution. Today: the agent side, `POST /api/v1/scheduled`.
 */
export { scheduledFeature, type ScheduledServeOptions } from "./feature.js";
export { createScheduledExtension } from "./scheduled-route.js";
export { SCHEDULED_PATH, type ScheduledContext, type ScheduledHandler, type ScheduledRequest, type ScheduledResponse } from "./wire.js";
