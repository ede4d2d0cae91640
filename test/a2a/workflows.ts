/** Workflows the A2A suites serve on a remote agent: `nap` sleeps (for cancelling a running task). */
import type { WorkflowSpec } from "../../runtime/spec/index.js";
import { workflowStep } from "../orchestration/support.js";

export const nap: WorkflowSpec = {
  name: "nap",
  version: "1.0",
  description: "Sleeps",
  inputs: [{ name: "ms", type: "number", required: true }],
  steps: [workflowStep("sleep", "sleep", { ms: "${inputs.ms}" })],
  outputs: [{ name: "slept", value: "${steps.sleep.output.slept}", type: { type: "number" }, required: true }],
};
