/** The A2A feature's part of the manifest format: `a2a: true` on an agent. */
import type { ManifestFeature, RawAgent } from "../manifest/index.js";

declare module "../manifest/index.js" {
  interface RawAgentFeatures {
    readonly a2a?: boolean;
  }
}
declare module "../spec/index.js" {
  interface AgentFeatureSpecs {
    /** The A2A agent card and JSON-RPC endpoint; absent when the manifest does not ask (MANIFOLD_A2A_ENABLED decides at run time). */
    readonly a2a?: boolean;
  }
}

export const a2aSchema: ManifestFeature["schema"] = {
  property: {
    description: "true: serves the A2A agent card at /.well-known/agent-card.json and JSON-RPC at POST /a2a (MANIFOLD_A2A_ENABLED overrides it).",
    type: "boolean",
  },
};

/** Absent when the manifest says nothing, so specs of agents without the key stay as they were. */
export function normaliseA2a({ a2a }: RawAgent): { a2a?: boolean } {
  return a2a === undefined ? {} : { a2a };
}
