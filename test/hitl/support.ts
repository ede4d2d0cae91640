/**
 * The approval fixtures several suites share: `pay`, a one-step workflow whose step calls the
 * `worker` tool's `echo` (test/orchestration/support.ts), and the policy that makes `echo` sensitive.
 */
import type { HitlSpec } from "../../runtime/hitl/index.js";
import type { WorkflowSpec } from "../../runtime/spec/types.js";
import { workflowStep } from "../orchestration/support.js";

/** `pay {a}` → `{charged: a}`, through one call of the sensitive `echo`. */
export const ECHO_PAY: WorkflowSpec = {
  name: "pay",
  version: "1.0",
  inputs: [{ name: "a", type: "number", required: true }],
  steps: [workflowStep("charge", "echo", { amount: "${inputs.a}", tag: "charge" })],
  outputs: [{ name: "charged", value: "${steps.charge.output.amount}", type: { type: "number" }, required: true }],
};

/** `echo` waits for a human, for a minute, then is rejected. */
export const SENSITIVE_ECHO: HitlSpec = { planApproval: false, sensitiveCapabilities: ["echo"], expiryMs: 60_000, defaultAction: "reject" };
