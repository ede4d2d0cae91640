/**
 * The live catalog: which components exist and what their capabilities take and return, from the
 * specs the agent was generated with and from discovery. The YAML engine checks workflows against it
 * and a planner plans from it.
 */
import type { Registry } from "../discovery/index.js";
import { capabilityWire, fieldsFromSummary, type CapabilityWire } from "../spec/index.js";
import type { CapabilitySpec, ComponentSpec } from "../spec/index.js";
import type { CheckContext, ComponentView } from "../manifest/dataflow/index.js";

export interface CatalogComponent {
  readonly name: string;
  readonly kind: "tool" | "agent";
  readonly description: string;
  readonly capabilities: readonly CapabilityWire[];
}

/**
 * Every known component, by name: the given specs first (they are what the agent was built
 * against), then every healthy or degraded registration not already known. Replicas of one name are
 * merged (a capability appears once, from the first replica that lists it).
 */
/**
 * One wire object per spec capability, for the process's life: what is compiled from a capability's
 * schema (the binding check's and recovery's validators, keyed by the wire object) is compiled once,
 * not once per request.
 */
const wires = new WeakMap<CapabilitySpec, CapabilityWire>();

function wireOf(capability: CapabilitySpec): CapabilityWire {
  let wire = wires.get(capability);
  if (wire === undefined) wires.set(capability, (wire = capabilityWire(capability)));
  return wire;
}

export async function readCatalog(registry: Registry | false, components: readonly ComponentSpec[] = []): Promise<CatalogComponent[]> {
  const byName = new Map<string, { name: string; kind: "tool" | "agent"; description: string; capabilities: Map<string, CapabilityWire> }>();
  for (const spec of components) {
    byName.set(spec.name, {
      name: spec.name,
      kind: spec.kind,
      description: spec.description,
      capabilities: new Map(spec.capabilities.map((c) => [c.name, wireOf(c)])),
    });
  }
  const fromSpecs = new Set(byName.keys());
  const entries = registry === false ? [] : await registry.listAll({ health: ["healthy", "degraded"] });
  for (const entry of entries) {
    if (fromSpecs.has(entry.name)) continue;
    let known = byName.get(entry.name);
    if (known === undefined) byName.set(entry.name, (known = { name: entry.name, kind: entry.type, description: entry.description, capabilities: new Map() }));
    for (const capability of entry.capabilities) if (!known.capabilities.has(capability.name)) known.capabilities.set(capability.name, capability);
  }
  return [...byName.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ capabilities, ...rest }) => ({ ...rest, capabilities: [...capabilities.values()] }));
}

/**
 * The catalog a language-model planner may plan from: capabilities marked `effects: lasting` (a
 * schedule acting later on the agent's behalf) are left out unless the agent allows them, by
 * `component.capability` or all with true (issue 32, H2). The planner's proposal is checked against
 * this same catalog, so a plan naming a hidden capability is refused as unknown.
 */
export function withoutLastingEffects(catalog: readonly CatalogComponent[], allowed: true | readonly string[] | undefined): CatalogComponent[] {
  if (allowed === true) return [...catalog];
  const allow = new Set(allowed ?? []);
  return catalog.map((component) => ({
    ...component,
    capabilities: component.capabilities.filter((c) => c.effects !== "lasting" || allow.has(`${component.name}.${c.name}`)),
  }));
}

/** A check context over a catalog, which also remembers the names it was asked for and did not know. */
export interface CatalogCheckContext extends CheckContext {
  readonly missing: ReadonlySet<string>;
}

export function checkContextOf(catalog: readonly CatalogComponent[], allowed?: ReadonlySet<string>): CatalogCheckContext {
  const views = new Map<string, ComponentView>();
  for (const component of catalog) {
    views.set(component.name, {
      kind: component.kind,
      capabilities: component.capabilities.map((wire) => ({
        name: wire.name,
        ...(wire.input_summary === undefined ? {} : { input: fieldsFromSummary(wire.input_summary) }),
        ...(wire.output_summary === undefined ? {} : { output: fieldsFromSummary(wire.output_summary) }),
      })),
    });
  }
  const missing = new Set<string>();
  return {
    missing,
    ...(allowed === undefined ? {} : { allowed }),
    component: (name) => {
      const view = views.get(name);
      if (view === undefined) missing.add(name);
      return view;
    },
  };
}
