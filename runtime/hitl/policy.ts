/**
 * When a run stops for a human: the agent manifest's `hitl:` block, overridden by the spec's
 * `MANIFOLD_HITL_ENABLED` and `MANIFOLD_HITL_STEP_SENSITIVE_CAPABILITIES`. The same policy applies to
 * every orchestration mode (natural plans, predefined and YAML workflows, custom steps), because it is
 * asked by the step-gate interceptor (interceptors.ts), which the executor runs for all of them.
 */
import { envFlag } from "../util/index.js";
import { DEFAULT_HITL_EXPIRY_MS, type HitlSpec } from "./manifest.js";

type Env = Readonly<Record<string, string | undefined>>;

export { DEFAULT_HITL_EXPIRY_MS };

export interface HitlPolicy {
  readonly enabled: boolean;
  /** Every plan waits for approval before its first step. */
  readonly planApproval: boolean;
  /** Capability names (`convert_currency`) or `component.capability` pairs whose calls wait for approval. */
  readonly sensitiveCapabilities: readonly string[];
  /** How long a checkpoint waits before its default action applies. */
  readonly expiryMs: number;
  readonly defaultAction: "approve" | "reject";
}

/**
 * The policy in force: the agent's `hitl:` block (normalised by gen, defaults filled in), then the
 * environment. An agent without the block has it off unless `MANIFOLD_HITL_ENABLED=true`; the
 * variable also turns a block off. The sensitive list from the environment (comma-separated)
 * replaces the manifest's, so an operator can tighten or loosen it per deployment without a rebuild.
 */
export function resolveHitlPolicy(spec: HitlSpec | undefined, env: Env = process.env): HitlPolicy {
  const enabled = envFlag(env, "MANIFOLD_HITL_ENABLED") ?? spec !== undefined;
  const listed = env["MANIFOLD_HITL_STEP_SENSITIVE_CAPABILITIES"];
  const sensitiveCapabilities =
    listed === undefined || listed.trim() === ""
      ? [...(spec?.sensitiveCapabilities ?? [])]
      : listed
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== "");
  return {
    enabled,
    planApproval: spec?.planApproval === true,
    sensitiveCapabilities,
    expiryMs: spec?.expiryMs ?? DEFAULT_HITL_EXPIRY_MS,
    defaultAction: spec?.defaultAction ?? "reject",
  };
}

/** The policy entries a call matches: its capability's name, or `component.capability`. */
export function sensitiveMatches(policy: HitlPolicy, component: string, capability: string): string[] {
  if (!policy.enabled) return [];
  return policy.sensitiveCapabilities.filter((entry) => entry === capability || entry === `${component}.${capability}`);
}

/** What the gate answers for a sensitive step: the step-gate interceptor's pause reason and its `interrupt.data`. */
export interface GateAnswer {
  readonly reason: string;
  readonly sensitive_matches: readonly string[];
}

/**
 * The policy's check of a step: an answer for a sensitive one (the run pauses for approval), none for
 * another; no gate at all when the policy gates nothing. Steps a human already approved are the
 * step-gate interceptor's to let through (`hitlState(state).approved`), not the gate's.
 */
export function createStepGate(
  policy: HitlPolicy,
): ((step: { step_id: string; agent_name: string; metadata: { capability: string } }) => GateAnswer | undefined) | undefined {
  if (!policy.enabled || policy.sensitiveCapabilities.length === 0) return undefined;
  return (step) => {
    const matches = sensitiveMatches(policy, step.agent_name, step.metadata.capability);
    if (matches.length === 0) return undefined;
    return { reason: `${step.agent_name}.${step.metadata.capability} is a sensitive capability`, sensitive_matches: matches };
  };
}
