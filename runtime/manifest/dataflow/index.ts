/**
 * The static data-flow checker of workflows, shared by `manifold gen` and the YAML workflow engine.
 * Pure: no I/O, everything about other components comes through `CheckContext`.
 */
export { checkWorkflow } from "./check-workflow.js";
export { RESERVED_WORKFLOW_NAMES, WORKFLOW_CHECK_CODES, type WorkflowCheckCode, type WorkflowCheckCodeInfo } from "./codes.js";
export { parseTemplate, hasExpression, type ParsedExpression, type ParsedTemplate, type Reference } from "./expressions.js";
export { displayPath, type DocumentPath } from "./paths.js";
export { closest } from "./suggest.js";
export { fitsType, mismatch, literalMismatch, describeSpec } from "./value-types.js";
export { inferValue, type Inferred } from "./outputs.js";
export type {
  CapabilityView,
  CheckContext,
  CheckResult,
  ComponentView,
  WorkflowDocument,
  WorkflowInputDocument,
  WorkflowIssue,
  WorkflowStepDocument,
} from "./types.js";
export { dependenciesOf, findCycles, skippableSteps, type Cycle, type Edge, type Graph } from "./graph.js";
