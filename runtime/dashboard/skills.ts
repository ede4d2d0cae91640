/**
 * The Skills view's data: the capability catalog as each agent's planner reads it. A planner plans
 * over every healthy or degraded registration (`readCatalog`), leaving out internal capabilities,
 * `effects: lasting` ones it is not allowed, and what its `uses` entries hide from it (`planner:
 * false` or a list); the agent publishes the last two in its registration (`planner` metadata). The
 * dashboard shows hidden capabilities marked, with the reason, instead of leaving them out.
 */
import type { Registry } from "../discovery/index.js";
import { readCatalog } from "../orchestration/served.js";
import { plannerSees, readPlannerMetadata, type CapabilityWire, type PlannerView } from "../spec/index.js";
import { capabilityOf, type DashboardCapability } from "./services.js";

/** Why the planner is not shown a capability: `internal`, `effects: lasting` not allowed, or the agent's `uses` entry. */
export type HiddenBy = "internal" | "lasting" | "uses";

export interface SkillCapability extends DashboardCapability {
  /** False when the planner is not shown it. */
  readonly planner_visible: boolean;
  readonly hidden_by?: HiddenBy;
}

export interface SkillComponent {
  readonly name: string;
  readonly kind: "tool" | "agent";
  readonly description: string;
  /** The agent whose catalog this is. */
  readonly self: boolean;
  readonly capabilities: readonly SkillCapability[];
}

export interface AgentSkills {
  readonly agent: string;
  readonly components: readonly SkillComponent[];
  /** Capabilities the planner may use. */
  readonly visible_count: number;
  readonly internal_count: number;
  /** Hidden for another reason than `internal` (lasting effects, the agent's `uses` entries). */
  readonly hidden_count: number;
}

function hiddenBy(view: PlannerView, component: string, wire: CapabilityWire): HiddenBy | undefined {
  if (wire.internal) return "internal";
  if (plannerSees(view, component, wire)) return undefined;
  return plannerSees({ ...view, allowLastingEffects: true }, component, wire) ? "lasting" : "uses";
}

/**
 * One catalog per registered agent, each read with the planner view that agent published (none
 * published: the defaults, lasting effects hidden). An agent also knows the specs it was generated
 * with, which are registered too while they run.
 */
export async function readSkills(registry: Registry): Promise<AgentSkills[]> {
  const catalog = await readCatalog(registry);
  // The same lookup readCatalog makes (the dashboard's registry view answers both from one read).
  const agentEntries = (await registry.listAll({ health: ["healthy", "degraded"] })).filter((e) => e.type === "agent");
  const agents = catalog.filter((component) => component.kind === "agent").map((component) => component.name);
  return agents.map((agent) => {
    const entry = agentEntries.find((e) => e.name === agent);
    const view = (entry && readPlannerMetadata(entry.metadata)) ?? {};
    const counts = { visible: 0, internal: 0, hidden: 0 };
    const components = catalog.map((component) => ({
      name: component.name,
      kind: component.kind,
      description: component.description,
      self: component.name === agent,
      capabilities: component.capabilities.map((wire): SkillCapability => {
        const hidden = hiddenBy(view, component.name, wire);
        if (hidden === undefined) counts.visible += 1;
        else if (hidden === "internal") counts.internal += 1;
        else counts.hidden += 1;
        return { ...capabilityOf(wire), planner_visible: hidden === undefined, ...(hidden && { hidden_by: hidden }) };
      }),
    }));
    return { agent, components, visible_count: counts.visible, internal_count: counts.internal, hidden_count: counts.hidden };
  });
}
