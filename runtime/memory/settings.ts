/**
 * Which memories an agent keeps: the manifest's `memory:` (normalised by gen), then the environment.
 * `MANIFOLD_MEMORY_ENABLED=true` turns memory on for an agent whose manifest leaves it off (both
 * memories, its name as the domain), `false` turns it off whatever the manifest says, as
 * `MANIFOLD_HITL_ENABLED` does for approval. `MANIFOLD_AGENT_DOMAIN` names the domain of episodic memory.
 */
import { checkKeyName } from "../store/index.js";
import { envFlag } from "../util/index.js";
import type { MemorySpec } from "./manifest.js";

type Env = Readonly<Record<string, string | undefined>>;

export const MEMORY_ENABLED_ENV = "MANIFOLD_MEMORY_ENABLED";
export const AGENT_DOMAIN_ENV = "MANIFOLD_AGENT_DOMAIN";

export interface MemorySettings {
  /** Facts about proven users: extraction after chat turns, recall into planning, `/memory/facts`. */
  readonly user: boolean;
  /** Episodes of the domain's runs. */
  readonly episodic: boolean;
  /** Where episodic memory is kept (a key segment: letters, digits, `_`, `.`, `-`). */
  readonly domain: string;
}

/** The memories in force for an agent; both off when memory is off. A bad variable fails at start-up naming it. */
export function resolveMemorySettings(spec: MemorySpec | undefined, agentName: string, env: Env = process.env): MemorySettings {
  const enabled = envFlag(env, MEMORY_ENABLED_ENV) ?? spec !== undefined;
  const given = env[AGENT_DOMAIN_ENV]?.trim();
  const domain = given === undefined || given === "" ? (spec?.domain ?? agentName) : checkKeyName(AGENT_DOMAIN_ENV, given);
  if (!enabled) return { user: false, episodic: false, domain };
  return { user: spec?.user ?? true, episodic: spec?.episodic ?? true, domain };
}
