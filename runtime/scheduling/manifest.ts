/**
 * The scheduled-runs feature's part of the manifest format: `scheduled: true`, or `scheduled: {input}`
 * declaring the fields a schedule's `input` carries to this agent, so its scheduled handler is typed
 * (`<Agent>ScheduledInput`) and a run whose input does not fit is refused before the handler.
 */
import type { FeatureCheckContext, ManifestFeature, ModuleName, RawAgent, RawFields } from "../manifest/index.js";
import { normaliseFields } from "../manifest/served.js";
import { toPascalCase, type FieldsSpec } from "../spec/index.js";

declare module "../manifest/index.js" {
  interface RawAgentFeatures {
    readonly scheduled?: boolean | { readonly input?: RawFields };
  }
}
declare module "../spec/index.js" {
  interface AgentFeatureSpecs {
    /** POST /api/v1/scheduled; absent when off, so specs of agents without it stay as they were. */
    readonly scheduled?: true;
    /** The declared fields of a scheduled run's `input`; absent: any object. */
    readonly scheduledInput?: FieldsSpec;
  }
}

export const scheduledSchema: ManifestFeature["schema"] = {
  property: {
    description:
      "true: exposes POST /api/v1/scheduled. `{input}`: the same, with the fields a schedule's `input` must carry (the scheduled handler's input type; a run whose input does not fit is refused).",
    oneOf: [{ type: "boolean" }, { type: "object", additionalProperties: false, properties: { input: { $ref: "#/definitions/fields" } } }],
  },
};

export function normaliseScheduled({ scheduled }: RawAgent): { scheduled?: true; scheduledInput?: FieldsSpec } {
  if (scheduled === undefined || scheduled === false) return {};
  const input = scheduled === true ? undefined : scheduled.input;
  return { scheduled: true, ...(input !== undefined && { scheduledInput: normaliseFields(input) }) };
}

export function checkScheduled(raw: RawAgent, { checkFields }: FeatureCheckContext): void {
  if (typeof raw.scheduled === "object") checkFields(raw.scheduled.input, ["scheduled", "input"]);
}

/** The names the generated module declares for scheduled runs (MF1321 checks them for clashes). */
export function scheduledModuleNames(raw: RawAgent): ModuleName[] {
  if (raw.scheduled === undefined || raw.scheduled === false) return [];
  const from = "`scheduled`";
  return ["ScheduledInput", "ScheduledHandler"].map((suffix) => ({
    name: `${toPascalCase(raw.name)}${suffix}`,
    path: ["scheduled"],
    from,
    kind: "component" as const,
  }));
}
