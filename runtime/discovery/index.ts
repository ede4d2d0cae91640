/**
 * Discovery: components register themselves (TTL refreshed by a heartbeat) and find each other by
 * name, type or capability. A `memory` and a `redis` adapter implement one Registry port.
 */
export { advertisedAddress } from "./advertise.js";
export { withCatalogCache, type CatalogCacheOptions } from "./catalog-cache.js";
export { baseUrlOf, discover, preferHealthy, type DiscoverOptions } from "./discover.js";
export { DEFAULT_TTL_MS, OVERDUE_FACTOR, ROLE_KEY, WORKER_ROLE, effectiveHealth } from "./entry.js";
export { createHealthProbe, type HealthProbeOptions } from "./health.js";
export { startHeartbeat, type Heartbeat, type HeartbeatOptions } from "./heartbeat.js";
export { createMemoryRegistry, createMemoryRegistryState, type MemoryRegistryOptions, type MemoryRegistryState } from "./memory-registry.js";
export { createRedisRegistry, type RedisRegistryOptions } from "./redis-registry.js";
export { createRegistry, defaultRegistry, type RegistryOptions } from "./registry.js";
export { REGISTRY_KEY_ENV, checkRegistryKey, resolveRegistryKey, verifyEntry, withRegistryKey, type RegistryKeyOptions } from "./signing.js";
export {
  HEALTH_STATES,
  type ComponentRegistration,
  type ComponentType,
  type HealthCheck,
  type HealthState,
  type LookupOptions,
  type RegisterOptions,
  type RegistrationOptions,
  type Registry,
  type RegistryEntry,
  type ReportedHealth,
  type Verification,
} from "./types.js";
export { resolveTiming } from "./entry.js";
