/**
 * The MF14xx codes of the workflow checker. They are part of the generator's one diagnostic table
 * (../codes.ts spreads this object into it, docs/diagnostics.md lists them), and
 * the YAML workflow engine returns them at run time: the same problem has the same code either way.
 */

export interface WorkflowCheckCodeInfo {
  readonly severity: "error" | "warning";
  readonly title: string;
  readonly description: string;
}

export const WORKFLOW_CHECK_CODES = {
  MF1401: {
    severity: "error",
    title: "Unknown workflow input",
    description: "`${inputs.<name>}` names an input the workflow does not declare under `inputs`.",
  },
  MF1402: { severity: "error", title: "Unknown step", description: "`${steps.<step>…}` names a step the workflow does not declare." },
  MF1403: { severity: "error", title: "Unknown step component", description: "A step's `tool` or `agent` names no known component." },
  MF1404: { severity: "error", title: "Unknown capability", description: "A step's `action` is not a capability of its component." },
  MF1405: {
    severity: "error",
    title: "Malformed expression",
    description: "A `${…}` is not `${inputs.<name>}`, `${steps.<step>.output}` or `${steps.<step>.output.<field>…}`, or is not closed.",
  },
  MF1406: {
    severity: "error",
    title: "Unknown output field",
    description: "A reference names a field absent from the capability's output summary (nested `fields` included), or goes inside a value that has no fields.",
  },
  MF1407: { severity: "error", title: "Required input not bound", description: "A step leaves a required input of its capability without a value." },
  MF1408: { severity: "error", title: "Undeclared step input", description: "A step gives an input key its capability's input summary does not declare." },
  MF1409: {
    severity: "error",
    title: "Type mismatch",
    description: "A value bound to a step input does not have the input's type (see the widening rules in docs/diagnostics.md).",
  },
  MF1410: {
    severity: "error",
    title: "Dependency cycle",
    description: "Steps depend on each other in a cycle (through `depends_on` or references); the message names it.",
  },
  MF1411: {
    severity: "warning",
    title: "Implicit dependency",
    description: "A step references another step's output without listing it in `depends_on`; the dependency is added.",
  },
  MF1412: { severity: "warning", title: "Unused workflow input", description: "A declared workflow input is referenced by no step and no output." },
  MF1413: {
    severity: "warning",
    title: "Unused step",
    description: "No step or output references the step's output and no step depends on it, so its result is discarded.",
  },
  MF1414: { severity: "error", title: "Unknown dependency", description: "`depends_on` names a step the workflow does not declare." },
  MF1415: {
    severity: "error",
    title: "Component not in uses",
    description: "A workflow the agent serves or runs as a task calls a component the agent does not list in `uses`.",
  },
  MF1416: { severity: "error", title: "Wrong component kind", description: "A step's `tool` names an agent, or its `agent` names a tool." },
  MF1417: {
    severity: "error",
    title: "Reserved workflow name",
    description: "`custom` and `natural` cannot be served as workflows: they are the routes `/orchestrate/custom` and `/orchestrate/natural`.",
  },
  MF1418: {
    severity: "error",
    title: "Duration too long",
    description: "A duration (a step or task `timeout`, `hitl.expiry`) is too large to be represented exactly in milliseconds.",
  },
  MF1419: {
    severity: "error",
    title: "Not a workflow",
    description: "Text given to the workflow loader (the YAML workflow engine) is a tool or agent manifest, not `kind: workflow`.",
  },
} as const satisfies Record<string, WorkflowCheckCodeInfo>;

export type WorkflowCheckCode = keyof typeof WORKFLOW_CHECK_CODES;

/** Workflow names an agent may not serve: `/orchestrate/custom` and `/orchestrate/natural` are taken (MF1417). */
export const RESERVED_WORKFLOW_NAMES: readonly string[] = ["custom", "natural"];
