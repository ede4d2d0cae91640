/**
 * Sensitivity that follows the call (issue 32, H2). The step gate (interceptors.ts) checks a plan's
 * own steps; this file puts the same policy on every call the request makes, through the request's
 * approval gate (context/approval.ts), which the outbound caller asks and carries to the components
 * a step calls (`X-Manifold-Approval-Gate`). A sensitive call made by a step's callee comes back as
 * APPROVAL_REQUIRED; `hitl.indirect_gate` pauses the run on that step, and its checkpoint names the
 * call. Approving it lets the resumed step's callee make exactly that call (capability and parameters
 * hash), once.
 */
import { currentScope, parametersHash } from "../context/index.js";
import type { ManifoldError } from "../errors/index.js";
import type { Interceptor, StepOutcomeContext } from "../orchestration/served.js";
import type { HitlPolicy } from "./policy.js";
import type { Checkpoint } from "./store/index.js";

/** The call an APPROVAL_REQUIRED names, as a checkpoint keeps it. */
export type IndirectCall = NonNullable<Checkpoint["decision"]["indirect"]>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The refused call an APPROVAL_REQUIRED error names in `details[0]`, if it names one in the expected shape. */
export function indirectCallOf(error: ManifoldError): { call: IndirectCall; matches: readonly string[] } | undefined {
  const detail: unknown = error.details?.[0];
  if (!isRecord(detail)) return undefined;
  const { component, capability, parameters, parameters_hash: hash, sensitive_matches: matches } = detail;
  if (typeof component !== "string" || typeof capability !== "string" || typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) return undefined;
  // The callee's own parameters are shown to the human only when they are what the hash binds.
  const shown = parameters !== undefined && parametersHash(parameters) === hash ? { parameters } : {};
  return {
    call: { component, capability, ...shown, parameters_hash: hash },
    matches: Array.isArray(matches) ? matches.filter((m): m is string => typeof m === "string") : [],
  };
}

/**
 * Puts the policy's entries on the request's gate (a run's calls, its steps' callees included, are
 * gated from its first step on), and grants what a human approved for this step: the step's own
 * call when it is sensitive, and the indirect call its checkpoint named, handed on with the step's call.
 */
export function gateStep(
  policy: HitlPolicy,
  step: { agent_name: string; metadata: { capability: string } },
  parameters: unknown,
  approved: { readonly step: boolean; readonly indirect: IndirectCall | undefined },
): void {
  const gate = currentScope()?.approval;
  if (gate === undefined || !policy.enabled || policy.sensitiveCapabilities.length === 0) return;
  gate.restrict(policy.sensitiveCapabilities);
  if (!approved.step) return;
  const own = { component: step.agent_name, capability: step.metadata.capability, hash: parametersHash(parameters ?? {}) };
  if (gate.matches(own.component, own.capability).length > 0) gate.grant({ allow: own });
  const { indirect } = approved;
  if (indirect !== undefined)
    gate.grant({ via: own, allow: { component: indirect.component, capability: indirect.capability, hash: indirect.parameters_hash } });
}

/** A step whose callee reached a sensitive capability pauses the run, as a sensitive step of its own would. */
export function createIndirectGateInterceptor(policy: HitlPolicy): Interceptor {
  return {
    name: "hitl.indirect_gate",
    afterStep({ step, error }: StepOutcomeContext) {
      if (!policy.enabled || error?.code !== "APPROVAL_REQUIRED") return undefined;
      const found = indirectCallOf(error);
      if (found === undefined) return undefined;
      const { call, matches } = found;
      return {
        action: "pause",
        reason: `${step.agent_name}.${step.metadata.capability} calls ${call.component}.${call.capability}, a sensitive capability`,
        waiting: `waiting for approval of step ${step.step_id}`,
        data: { sensitive_matches: matches, indirect: call },
      };
    },
  };
}
