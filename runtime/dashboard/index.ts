/**
 * The dashboard (the spec's registry viewer): a web app and its JSON API over the registry, the
 * debug stores, the checkpoints and the chat sessions of a network. `manifold dashboard` serves it;
 * `serveDashboard()` does the same in code. See README.md beside this file.
 */
export { DASHBOARD_SPEC, DEFAULT_DASHBOARD_PORT, serveDashboard, type DashboardOptions, type RunningDashboard } from "./serve-dashboard.js";
export {
  AGENT_NAME_ENV,
  MAX_MEMORY_DOMAINS,
  MEMORY_DOMAINS_ENV,
  POLL_ENV,
  TRACE_UI_ENV,
  resolveDashboardSettings,
  type DashboardSettings,
  type SettingsOverrides,
} from "./settings.js";
export {
  OPENAPI_METADATA_KEY,
  createOpenApiProbe,
  listServices,
  serviceRecord,
  type DashboardCapability,
  type OpenApiProbe,
  type OpenApiProbeOptions,
  type ServiceRecord,
  type SwaggerUrl,
} from "./services.js";
export { actionsOf, type CheckpointActions, type CheckpointView } from "./hitl.js";
export { EXECUTIONS_OFF, LLM_DEBUG_OFF } from "./debug-routes.js";
export type { AgentSkills, SkillCapability, SkillComponent } from "./skills.js";
export type { ExecutionNode, ExecutionSummary, LlmRecordSummary } from "./debug.js";
