/**
 * The memory feature's part of the manifest format: `memory: true`, or `memory: {user, episodic,
 * domain}` (both memories on by default once memory is on; the domain defaults to the agent's name).
 * `MANIFOLD_MEMORY_ENABLED` and `MANIFOLD_AGENT_DOMAIN` may still override it at run time (settings.ts).
 */
import type { ManifestFeature, RawAgent } from "../manifest/index.js";

/** The `memory:` block as written. */
export interface RawMemory {
  readonly user?: boolean;
  readonly episodic?: boolean;
  readonly domain?: string;
}

/** An agent's memory with its defaults filled in; absent when the manifest leaves memory off. */
export interface MemorySpec {
  /** Facts about each proven user, extracted after chat turns and recalled into planning. */
  readonly user: boolean;
  /** Episodes of this agent's domain, recorded after runs and read back for planning. */
  readonly episodic: boolean;
  /** The domain episodic memory is kept under. @defaultValue the agent's name */
  readonly domain: string;
}

declare module "../manifest/index.js" {
  interface RawAgentFeatures {
    readonly memory?: boolean | RawMemory;
  }
}
declare module "../spec/index.js" {
  interface AgentFeatureSpecs {
    /** User and episodic memory (the manifest's `memory:`); absent when off. */
    readonly memory?: MemorySpec;
  }
}

/** A domain is a key segment of episodic memory's Redis keys: the store's rule for names (store/keys.ts). */
export const DOMAIN_PATTERN = "^[A-Za-z0-9_.-]{1,64}$";

export const memorySchema: ManifestFeature["schema"] = {
  property: { $ref: "#/definitions/memory" },
  definitions: {
    memory: {
      title: "memory",
      description: "true: the agent remembers its users (facts from chat turns) and its domain's past runs (episodes).",
      // One schema for both forms (a oneOf would report each branch's failure): the object keywords
      // apply only when the value is an object.
      type: ["boolean", "object"],
      additionalProperties: false,
      properties: {
        user: { description: "Facts about each identified user, recalled into planning (default true).", type: "boolean" },
        episodic: { description: "Episodes of past runs in the agent's domain, read back for planning (default true).", type: "boolean" },
        domain: {
          description: "The domain episodic memory is kept under (default the agent's name; MANIFOLD_AGENT_DOMAIN overrides).",
          type: "string",
          pattern: DOMAIN_PATTERN,
        },
      },
    },
  },
};

/** Absent when off (`memory: false` or no key), so specs of agents without memory stay as they were. */
export function normaliseMemory({ name, memory }: RawAgent): { memory?: MemorySpec } {
  if (memory === undefined || memory === false) return {};
  const block: RawMemory = memory === true ? {} : memory;
  return { memory: { user: block.user ?? true, episodic: block.episodic ?? true, domain: block.domain ?? name } };
}
