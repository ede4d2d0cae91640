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
