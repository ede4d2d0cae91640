/**
 * The Skills view's data: the capability catalog as each agent's planner reads it. A planner plans
 * over every healthy or degraded registration (`readCatalog`), leaving internal capabilities out of
 * what the model is shown; the dashboard shows them marked instead of hiding them.
 */
import type { Registry } from "../discovery/index.js";
import { readCatalog } from "../orchestration/index.js";
import { capabilityOf, type DashboardCapability } from "./services.js";

export interface SkillCapability extends DashboardCapability {
  /** False for internal capabilities: the planner is not shown them. */
  readonly planner_visible: boolean;
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
  /** Capabilities the planner may use, internal ones excluded. */
  readonly visible_count: number;
  readonly internal_count: number;
}

/**
 * One catalog per registered agent. From outside the agent's process the catalogs are alike except
 * for the `self` mark: an agent also knows the specs it was generated with, which are registered
 * too while they run.
 */
export async function readSkills(registry: Registry): Promise<AgentSkills[]> {
  const catalog = await readCatalog(registry);
  const agents = catalog.filter((component) => component.kind === "agent").map((component) => component.name);
  let visible = 0;
  let internal = 0;
  const shared = catalog.map((component) => ({
    name: component.name,
    kind: component.kind,
    description: component.description,
    capabilities: component.capabilities.map((wire): SkillCapability => {
      if (wire.internal) internal += 1;
      else visible += 1;
      return { ...capabilityOf(wire), planner_visible: !wire.internal };
    }),
  }));
  return agents.map((agent) => ({
    agent,
    components: shared.map((component) => ({ ...component, self: component.name === agent })),
    visible_count: visible,
    internal_count: internal,
  }));
}
