/**
 * The orchestration feature's part of the manifest format: the `orchestration:` block (natural mode,
 * inline custom plans, served workflows), its schema fragment, its types and its normaliser. Every
 * agent has an orchestrator (tasks and scheduled runs call workflows through it), so its spec part is
 * always present; it lists every workflow some feature names, served or not.
 */
import type { FeatureLinkContext, ManifestFeature, NormaliseContext, RawAgent, WorkflowReference } from "../manifest/index.js";
import { compareText } from "../manifest/served.js";
import type { WorkflowSpec } from "../spec/index.js";

/** The `orchestration:` block as written. */
export interface RawOrchestration {
  readonly natural?: { readonly model: string; readonly allow_lasting_effects?: boolean | readonly string[] };
  readonly custom?: boolean;
  readonly workflows?: readonly string[];
}

/** The agent's orchestration front ends with their defaults filled in. */
export interface OrchestrationSpec {
  /**
   * POST /orchestrate/natural. `allowLastingEffects`: the `effects: lasting` capabilities the planner
   * may see and plan (`component.capability` names, or true for all); absent, none (issue 32, H2).
   */
  readonly natural?: { readonly model: string; readonly allowLastingEffects?: true | readonly string[] };
  /** POST /orchestrate/custom */
  readonly custom: boolean;
  /** Every workflow the agent runs (served, or run by another feature such as tasks), sorted by name. */
  readonly workflows: readonly WorkflowSpec[];
  /** Names of the workflows served under /orchestrate (the manifest's `orchestration.workflows`). */
  readonly endpoints: readonly string[];
}

declare module "../manifest/index.js" {
  interface RawAgentFeatures {
    readonly orchestration?: RawOrchestration;
  }
}
declare module "../spec/index.js" {
  interface AgentFeatureSpecs {
    readonly orchestration: OrchestrationSpec;
  }
}

export const orchestrationSchema: ManifestFeature["schema"] = {
  property: { $ref: "#/definitions/orchestration" },
  definitions: {
    orchestration: {
      title: "orchestration",
      description: "The orchestration front ends the agent exposes.",
      type: "object",
      additionalProperties: false,
      properties: {
        natural: {
          title: "natural orchestration",
          description: "POST /orchestrate/natural: a language model plans the calls (needs an AI provider at run time).",
          type: "object",
          additionalProperties: false,
          required: ["model"],
          properties: {
            model: { description: "The model name, e.g. gpt-4o-mini.", type: "string", minLength: 1 },
            allow_lasting_effects: {
              description:
                "Capabilities marked `effects: lasting` (the scheduler's schedule_task, update_schedule, cancel_schedule) the planner may see and plan: true for all, or a list of component.capability names. Default: none, so text a tool returns cannot make the model create a schedule.",
              oneOf: [{ type: "boolean" }, { type: "array", uniqueItems: true, items: { type: "string", pattern: "^[a-z0-9][a-z0-9-]*\\.[a-z0-9_]+$" } }],
            },
          },
        },
        custom: { description: "true: POST /orchestrate/custom runs an inline step list.", type: "boolean" },
        workflows: {
          description: "Workflows served at POST /orchestrate/<name>; each must have a manifest.",
          type: "array",
          uniqueItems: true,
          items: { $ref: "#/definitions/componentName" },
        },
      },
    },
  },
};

/** A name without a spec is one with errors (gen stops) or one not resolvable on its own. */
export function normaliseOrchestration(raw: RawAgent, { workflows, referenced }: NormaliseContext): { orchestration: OrchestrationSpec } {
  const served = raw.orchestration?.workflows ?? [];
  const known = (name: string): boolean => workflows.has(name);
  const natural = raw.orchestration?.natural;
  return {
    orchestration: {
      ...(natural !== undefined && { natural: naturalSpec(natural) }),
      custom: raw.orchestration?.custom ?? false,
      workflows: [...new Set([...served, ...referenced])]
        .filter(known)
        .sort(compareText)
        .map((name) => workflows.get(name)!),
      endpoints: served.filter(known).sort(compareText),
    },
  };
}

function naturalSpec({ model, allow_lasting_effects: allowed }: NonNullable<RawOrchestration["natural"]>): NonNullable<OrchestrationSpec["natural"]> {
  if (allowed === true) return { model, allowLastingEffects: true };
  if (Array.isArray(allowed) && allowed.length > 0) return { model, allowLastingEffects: [...allowed].sort(compareText) };
  return { model };
}

export function servedWorkflows(raw: RawAgent): WorkflowReference[] {
  return (raw.orchestration?.workflows ?? []).map((name, i) => ({ name, path: ["orchestration", "workflows", i], served: true }));
}

export function linkOrchestration(raw: RawAgent, { report, knowsWorkflow, didYouMean, workflowNames }: FeatureLinkContext): void {
  (raw.orchestration?.workflows ?? []).forEach((name, i) => {
    if (!knowsWorkflow(name))
      report("MF1312", ["orchestration", "workflows", i], `orchestration workflow \`${name}\` has no workflow manifest${didYouMean(name, workflowNames)}`);
  });
}
