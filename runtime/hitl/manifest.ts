/**
 * The HITL feature's part of the manifest format: the `hitl:` block, its schema fragment, its types,
 * its normaliser (every default explicit) and its checks.
 */
import type { FeatureCheckContext, FeatureLinkContext, ManifestFeature, RawAgent } from "../manifest/index.js";
import { parseDuration } from "../spec/index.js";

/** The `hitl:` block as written. */
export interface RawHitl {
  readonly plan_approval?: boolean;
  readonly sensitive_capabilities?: readonly string[];
  readonly expiry?: string;
  readonly default_action: "reject" | "approve";
}

/** An agent's `hitl:` block with its defaults filled in; `MANIFOLD_HITL_*` may still override it at run time. */
export interface HitlSpec {
  /** Every plan waits for approval before its first step. */
  readonly planApproval: boolean;
  /** Capability names or `component.capability` pairs whose calls wait for approval, as written. */
  readonly sensitiveCapabilities: readonly string[];
  /** How long a checkpoint waits before its default action applies. @defaultValue DEFAULT_HITL_EXPIRY_MS */
  readonly expiryMs: number;
  /** What an expired checkpoint does. */
  readonly defaultAction: "approve" | "reject";
}

declare module "../manifest/index.js" {
  interface RawAgentFeatures {
    readonly hitl?: RawHitl;
  }
}
declare module "../spec/index.js" {
  interface AgentFeatureSpecs {
    /** Human approval checkpoints and the /hitl routes (the manifest's `hitl:` block); absent without one. */
    readonly hitl?: HitlSpec;
  }
}

/** How long a checkpoint waits when the manifest's `hitl:` gives no `expiry` (DESIGN §2's example). */
export const DEFAULT_HITL_EXPIRY_MS = 5 * 60_000;

export const hitlSchema: ManifestFeature["schema"] = {
  property: { $ref: "#/definitions/hitl" },
  definitions: {
    hitl: {
      title: "hitl",
      description: "Human-in-the-loop approval.",
      type: "object",
      additionalProperties: false,
      required: ["default_action"],
      properties: {
        plan_approval: { description: "true: every plan waits for approval before it runs.", type: "boolean" },
        sensitive_capabilities: {
          description: "Capabilities whose calls wait for approval.",
          type: "array",
          uniqueItems: true,
          items: { $ref: "#/definitions/identifier" },
        },
        expiry: { $ref: "#/definitions/duration" },
        default_action: { description: "What happens when a checkpoint expires.", enum: ["reject", "approve"] },
      },
    },
  },
};

/**
 * An `expiry` that is not a duration in range is MF1418 (gen stops), so the fallback only keeps a
 * spec of a manifest with errors well-formed.
 */
export function normaliseHitl({ hitl }: RawAgent): { hitl?: HitlSpec } {
  if (hitl === undefined) return {};
  return {
    hitl: {
      planApproval: hitl.plan_approval ?? false,
      sensitiveCapabilities: [...(hitl.sensitive_capabilities ?? [])],
      expiryMs: (hitl.expiry === undefined ? undefined : parseDuration(hitl.expiry)) ?? DEFAULT_HITL_EXPIRY_MS,
      defaultAction: hitl.default_action ?? "reject",
    },
  };
}

export function checkHitl({ hitl }: RawAgent, { report }: FeatureCheckContext): void {
  const expiry = hitl?.expiry;
  if (expiry !== undefined && parseDuration(expiry) === undefined)
    report("MF1418", ["hitl", "expiry"], `expiry \`${expiry}\` is not a duration that fits in milliseconds`);
}

/** Sensitive capabilities must be offered by the agent or a component it uses. */
export function linkHitl(raw: RawAgent, { report, didYouMean, offered }: FeatureLinkContext): void {
  if (offered === undefined) return;
  (raw.hitl?.sensitive_capabilities ?? []).forEach((name, i) => {
    if (!offered.has(name)) {
      report(
        "MF1311",
        ["hitl", "sensitive_capabilities", i],
        `sensitive capability \`${name}\` is offered neither by \`${raw.name}\` nor by a component it uses${didYouMean(name, offered)}`,
      );
    }
  });
}
