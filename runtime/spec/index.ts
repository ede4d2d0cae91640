export * from "./types.js";
export { DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_REGISTRATION_TTL_MS, DEFAULT_TASK_SHUTDOWN_TIMEOUT_MS } from "./lifecycle.js";
export { DURATION_PATTERN, durationFromEnv, parseDuration } from "./duration.js";
export { DNS_LABEL, isDnsLabel, toCamelCase, toPascalCase } from "./names.js";
export { DRAFT_07, capabilitySchema, objectSchema, valueSchema, type JsonSchema, type SchemaDialect, type SchemaSide } from "./json-schema.js";
export {
  addErrorEnvelope,
  buildOpenApi,
  ERROR_RESPONSE,
  jsonContent,
  schemaName,
  schemaRef,
  type OpenApiAddition,
  type OpenApiAuth,
  type OpenApiOptions,
  type OpenApiParts,
} from "./openapi.js";
export { PLANNER_METADATA_KEY, plannerMetadata, plannerSees, readPlannerMetadata, type PlannerView } from "./planner-view.js";
export { capabilityWire, fieldsFromSummary, summary, type CapabilityWire, type FieldSummary, type WireField, type WireValue } from "./wire.js";
export {
  AI_SYNTHESIS_FIELD,
  PLAN_STEP_SCHEMA,
  servedWorkflows,
  taskInputSchema,
  taskOutputSchema,
  taskTypeStem,
  taskWorkflow,
  workflowInputFields,
  workflowOutputSchema,
  workflowRequestSchema,
  workflowTypeStem,
} from "./agent-schemas.js";
export { MCP_LOCK_VERSION, mcpLockFileName, type McpLock, type McpLockTool } from "./mcp-lock.js";
export { canonicalJson, contentHash, formatLockFile } from "./canonical-json.js";
export {
  A2A_LOCK_VERSION,
  a2aLockFileName,
  a2aLockHash,
  buildA2aLock,
  MAX_A2A_SKILLS,
  SKILL_SCHEMAS_EXTENSION,
  type A2aLock,
  type A2aLockAgent,
  type A2aLockSkill,
} from "./a2a-lock.js";
