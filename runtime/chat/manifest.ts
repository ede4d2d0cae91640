/** The chat feature's part of the manifest format: `chat: true`. */
import type { ManifestFeature, RawAgent } from "../manifest/index.js";

declare module "../manifest/index.js" {
  interface RawAgentFeatures {
    readonly chat?: boolean;
  }
}
declare module "../spec/index.js" {
  interface AgentFeatureSpecs {
    /** /chat/* over SSE and /query; absent when off. */
    readonly chat?: true;
  }
}

export const chatSchema: ManifestFeature["schema"] = { property: { description: "true: exposes /chat/* and /query.", type: "boolean" } };

/** Absent when off, so specs of agents without chat stay as they were. */
export function normaliseChat({ chat }: RawAgent): { chat?: true } {
  return chat === true ? { chat: true } : {};
}
