/** What the agent MCP suites share: the `double` workflow, `{a}` → `{doubled}` through the worker tool's `add`. */
import type { WorkflowSpec } from "../../runtime/spec/index.js";
import { workflowStep } from "../orchestration/support.js";

export const double: WorkflowSpec = {
  name: "double",
  version: "1.0",
  description: "Doubles a number",
  inputs: [{ name: "a", type: "number", required: true }],
  steps: [workflowStep("sum", "add", { a: "${inputs.a}", b: "${inputs.a}" })],
  outputs: [{ name: "doubled", value: "${steps.sum.output.sum}", type: { type: "number" }, required: true }],
};
