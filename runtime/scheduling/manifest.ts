/** The scheduled-runs feature's part of the manifest format: `scheduled: true`. */
import type { ManifestFeature, RawAgent } from "../manifest/index.js";

declare module "../manifest/index.js" {
  interface RawAgentFeatures {
    readonly scheduled?: boolean;
  }
}
declare module "../spec/index.js" {
  interface AgentFeatureSpecs {
    /** POST /api/v1/scheduled; absent when off, so specs of agents without it stay as they were. */
    readonly scheduled?: true;
  }
}

export const scheduledSchema: ManifestFeature["schema"] = { property: { description: "true: exposes POST /api/v1/scheduled.", type: "boolean" } };

export function normaliseScheduled({ scheduled }: RawAgent): { scheduled?: true } {
  return scheduled === true ? { scheduled: true } : {};
}
