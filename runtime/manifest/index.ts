/**
 * The manifest layer, shared by `manifold gen` and the runtime (serving a manifest directly, the
 * YAML workflow engine). Its stages are files: `parse` (YAML with positions) → `validate-schema`
 * (the meta-schema) and `validate-semantic` (per-file meaning) → `normalise` → `link` (across files)
 * → `check` (the workflow data-flow checker, `dataflow/`), each problem a positioned diagnostic
 * with a code of the one table (`codes.ts`).
 */
export { DIAGNOSTIC_CODES, isDiagnosticCode, type DiagnosticCode, type DiagnosticCodeInfo } from "./codes.js";
export {
  START,
  compareDiagnostics,
  createDiagnostic,
  formatDiagnostics,
  sortDiagnostics,
  summariseDiagnostics,
  type DiagnosticFormat,
  type FormatOptions,
  type Position,
} from "./diagnostics/index.js";
export {
  hasErrors,
  type Diagnostic,
  type LoadedManifest,
  type ManifestKind,
  type McpManifestInfo,
  type A2aManifestInfo,
  type Project,
  type Severity,
} from "./project.js";
export { capabilityNameOf, mcpLockPath } from "./load-mcp.js";
export { a2aLockPath } from "./load-a2a.js";
export { JSON_SCHEMA_MAX_DEPTH, isFieldName, jsonSchemaFields, jsonSchemaValue } from "./json-schema-fields.js";
export {
  assemble,
  loadManifestText,
  loadSources,
  manifestText,
  SYNTAX_ERROR,
  type AssembleOptions,
  type ManifestSource,
  type ParsedValues,
} from "./load-sources.js";
export { displayFile, loadComponentFile, type LoadComponentOptions } from "./load-file.js";
export { loadWorkflowText, type WorkflowTextResult } from "./load-workflow.js";
export { DEFAULT_MAX_FILE_BYTES, decodeUtf8, describeFsError, readManifestFile, type ReadResult } from "./read-file.js";
export { createManifestFiles } from "./manifest-files.js";
export { assembleManifestSchema, FORMAT_SCHEMA, manifestValidator, type ManifestSchema } from "./meta-schema.js";
export type {
  FeatureCheckContext,
  FeatureLinkContext,
  FeatureSchema,
  FileInfo,
  ManifestFeature,
  ManifestFiles,
  ModuleName,
  NormaliseContext,
  PendingKey,
  RawAgent,
  WorkflowReference,
} from "./feature.js";
export type { RawAgentFeatures, RawComponent, RawFields } from "./manifest-types.js";
export { normaliseFields, workflowOutputFields } from "./normalise.js";
export { compareText } from "./values.js";
export { featureRoutePrefixes } from "./validate-semantic.js";
export { notGenerated } from "./not-generated.js";
export { BUILTIN_MANIFESTS, builtinFile, isBuiltinFile } from "./builtins.js";
export type { RawDeployedComponent, RawDeployment } from "./manifest-types.js";
export { DEPLOY_RESERVED_ENV } from "./link-deployment.js";
export { MODULE_IMPORTS } from "./module-names.js";
export * from "./dataflow/index.js";
export { MANIFOLD_VERSION } from "./version.js";
