/**
 * What an agent's natural-mode planner may see, published in its discovery registration so that a
 * process without the agent's spec (the dashboard's Skills view) can show the catalog as that planner
 * reads it. The planner itself filters its catalog in runtime/orchestration (catalog.ts); this is the
 * same rule, stated once more over wire records: internal capabilities are never shown, `effects:
 * lasting` ones only when allowed, and a `uses` entry's `planner` limit keeps only what it lists.
 */
import type { ComponentSpec } from "./types.js";
import type { CapabilityWire } from "./wire.js";

/** The registration metadata key holding the agent's planner view (JSON). */
export const PLANNER_METADATA_KEY = "planner";

export interface PlannerView {
  /** Per used component, the only capabilities the planner may see (the agent's `plannerCapabilities`). */
  readonly capabilities?: Readonly<Record<string, readonly string[]>>;
  /** The `effects: lasting` capabilities it may see (`component.capability`), or true for all. */
  readonly allowLastingEffects?: true | readonly string[];
}

/** Longest metadata value read back: a registration is written by any process holding the registry. */
const MAX_VIEW_CHARS = 64 * 1024;

/** The agent's planner view as registration metadata; nothing for a tool. */
export function plannerMetadata(spec: ComponentSpec): Record<string, string> {
  if (spec.agent === undefined) return {};
  // The orchestration feature adds `orchestration` to the agent spec; read structurally so this layer names no feature.
  const natural = (spec.agent as { orchestration?: { natural?: { allowLastingEffects?: true | readonly string[] } } }).orchestration?.natural;
  const view: PlannerView = {
    ...(spec.agent.plannerCapabilities && { capabilities: spec.agent.plannerCapabilities }),
    ...(natural?.allowLastingEffects !== undefined && { allowLastingEffects: natural.allowLastingEffects }),
  };
  return { [PLANNER_METADATA_KEY]: JSON.stringify(view) };
}

/** The view an agent published; undefined when it published none or an unreadable one. */
export function readPlannerMetadata(metadata: Readonly<Record<string, string>>): PlannerView | undefined {
  const text = metadata[PLANNER_METADATA_KEY];
  if (text === undefined || text.length > MAX_VIEW_CHARS) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { capabilities, allowLastingEffects } = parsed as Record<string, unknown>;
  const isNames = (v: unknown): v is string[] => Array.isArray(v) && v.every((n) => typeof n === "string");
  const limits =
    typeof capabilities === "object" && capabilities !== null && Object.values(capabilities).every(isNames)
      ? (capabilities as Record<string, string[]>)
      : undefined;
  const lasting = allowLastingEffects === true || isNames(allowLastingEffects) ? allowLastingEffects : undefined;
  return { ...(limits && { capabilities: limits }), ...(lasting !== undefined && { allowLastingEffects: lasting }) };
}

/** Whether a planner with this view is shown `component`'s capability. */
export function plannerSees(view: PlannerView, component: string, wire: Pick<CapabilityWire, "name" | "internal" | "effects">): boolean {
  if (wire.internal === true) return false;
  const only = view.capabilities?.[component];
  if (only !== undefined && !only.includes(wire.name)) return false;
  if (wire.effects !== "lasting") return true;
  const allowed = view.allowLastingEffects;
  return allowed === true || (allowed?.includes(`${component}.${wire.name}`) ?? false);
}
