/**
 * How long a served component takes to stop, and how long the registry trusts it. They live here, not
 * in the folders that use them, because `manifold gen --deploy` derives the emitted
 * `terminationGracePeriodSeconds` and probe timings from the same numbers: the two cannot drift apart.
 */

/** After SIGTERM: in-flight requests get this long, then extensions (a task pool, the executor) get as long again. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/** A worker-mode task pool waits this long for running tasks before it gives their leases back. */
export const DEFAULT_TASK_SHUTDOWN_TIMEOUT_MS = 30_000;

/** A registration not refreshed for this long expires from the registry (heartbeats come every third of it). */
export const DEFAULT_REGISTRATION_TTL_MS = 30_000;
