/**
 * The live catalog: which components exist and what their capabilities take and return, from the
 * specs the agent was generated with and from discovery. The YAML engine checks workflows against it
 * and a planner plans from it.
 */
import type { Registry, RegistryEntry } from "../discovery/index.js";
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

/** One registry entry as the catalog reads it: entries equal in these build the same catalog. */
type CatalogEntry = Pick<RegistryEntry, "name" | "type" | "description" | "capabilities">;

interface Built {
  readonly components: readonly ComponentSpec[];
  readonly entries: readonly CatalogEntry[];
  readonly catalog: CatalogComponent[];
}

/** The last catalogs built (two: an agent's orchestrator and its YAML engine may read with different specs). */
const built: Built[] = [];
const MAX_BUILT = 2;
const NO_COMPONENTS: readonly ComponentSpec[] = Object.freeze([]);

const sameList = <T>(a: readonly T[], b: readonly T[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Entries that build the same catalog: the registry hands out the same frozen record objects while nothing changed (discovery/entry.ts). */
function sameEntries(a: readonly CatalogEntry[], b: readonly CatalogEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y && (x.capabilities !== y.capabilities || x.name !== y.name || x.type !== y.type || x.description !== y.description)) return false;
  }
  return true;
}

/**
 * Every known component, by name: the given specs first (they are what the agent was built
 * against), then every healthy or degraded registration not already known. Replicas of one name are
 * merged (a capability appears once, from the first replica that lists it).
 *
 * While the specs and the registry's entries are the same objects, the catalog built last is
 * returned again (frozen): every request reads the catalog, and rebuilding thousands of components
 * per request, then collecting them, was most of a large catalog's per-request cost; the same
 * catalog also keeps identity-keyed caches downstream (the catalog index, the plan check) warm.
 */
export async function readCatalog(registry: Registry | false, components: readonly ComponentSpec[] = NO_COMPONENTS): Promise<CatalogComponent[]> {
  const entries = registry === false ? [] : await registry.listAll({ health: ["healthy", "degraded"] });
  const hit = built.find((b) => sameList(b.components, components) && sameEntries(b.entries, entries));
  if (hit !== undefined) return hit.catalog;
  const catalog = buildCatalog(entries, components);
  built.unshift({ components, entries, catalog });
  built.length = Math.min(built.length, MAX_BUILT);
  return catalog;
}

function buildCatalog(entries: readonly CatalogEntry[], components: readonly ComponentSpec[]): CatalogComponent[] {
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
  for (const entry of entries) {
    // An MCP server's entry is there to be seen: only an agent holding its spec can call it, through its session.
    if (fromSpecs.has(entry.name) || entry.type === "mcp") continue;
    let known = byName.get(entry.name);
    if (known === undefined) byName.set(entry.name, (known = { name: entry.name, kind: entry.type, description: entry.description, capabilities: new Map() }));
    for (const capability of entry.capabilities) if (!known.capabilities.has(capability.name)) known.capabilities.set(capability.name, capability);
  }
  const catalog = [...byName.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ capabilities, ...rest }) => Object.freeze({ ...rest, capabilities: Object.freeze([...capabilities.values()]) }));
  return Object.freeze(catalog) as CatalogComponent[];
}

/** Per catalog, the planner's view of it by the `allowed` option given (one or two per process: the option is configuration). */
const plannerViews = new WeakMap<readonly CatalogComponent[], Map<true | readonly string[] | undefined, CatalogComponent[]>>();
const MAX_VIEWS = 4;

/** The wire of `component.capability` in a catalog, when it has one. */
export function capabilityIn(catalog: readonly CatalogComponent[], component: string, capability: string): CapabilityWire | undefined {
  return catalog.find((c) => c.name === component)?.capabilities.find((w) => w.name === capability);
}

/**
 * The catalog a language-model planner may plan from: capabilities marked `effects: lasting` (a
 * schedule acting later on the agent's behalf) are left out unless the agent allows them, by
 * `component.capability` or all with true (issue 32, H2). The planner's proposal is checked against
 * this same catalog, so a plan naming a hidden capability is refused as unknown. The same catalog
 * and option give the same (frozen) result, whose components are the catalog's own where nothing
 * was left out of them.
 */
export function withoutLastingEffects(catalog: readonly CatalogComponent[], allowed: true | readonly string[] | undefined): CatalogComponent[] {
  let views = plannerViews.get(catalog);
  if (views === undefined) plannerViews.set(catalog, (views = new Map()));
  let view = views.get(allowed);
  if (view === undefined) {
    if (views.size >= MAX_VIEWS) views.clear();
    views.set(allowed, (view = plannerView(catalog, allowed)));
  }
  return view;
}

function plannerView(catalog: readonly CatalogComponent[], allowed: true | readonly string[] | undefined): CatalogComponent[] {
  if (allowed === true) return Object.freeze([...catalog]) as CatalogComponent[];
  const allow = new Set(allowed ?? []);
  const view = catalog.map((component) => {
    const capabilities = component.capabilities.filter((c) => c.effects !== "lasting" || allow.has(`${component.name}.${c.name}`));
    return capabilities.length === component.capabilities.length ? component : Object.freeze({ ...component, capabilities: Object.freeze(capabilities) });
  });
  return Object.freeze(view) as CatalogComponent[];
}

/** Per catalog, its views by planner limits (one per agent spec: the limits object is the spec's own). */
const limitedViews = new WeakMap<readonly CatalogComponent[], WeakMap<PlannerLimits, CatalogComponent[]>>();

/** Per used component, the only capabilities the planner may see (the agent's `uses` entries with `planner`). */
export type PlannerLimits = Readonly<Record<string, readonly string[]>>;

/**
 * The catalog less what the agent's `uses` entries hide from its planner (`planner: false`, or a list
 * of the capabilities it may see). Applied where `withoutLastingEffects` is, so the proposal is checked
 * against it and a plan naming a hidden capability is refused as unknown. Typed clients are unaffected.
 */
export function withPlannerLimits(catalog: readonly CatalogComponent[], limits: PlannerLimits | undefined): CatalogComponent[] {
  if (limits === undefined) return catalog as CatalogComponent[];
  let views = limitedViews.get(catalog);
  if (views === undefined) limitedViews.set(catalog, (views = new WeakMap()));
  let view = views.get(limits);
  if (view === undefined) {
    view = catalog.map((component) => {
      const only = limits[component.name];
      if (only === undefined) return component;
      return Object.freeze({ ...component, capabilities: Object.freeze(component.capabilities.filter((c) => only.includes(c.name))) });
    });
    views.set(limits, (view = Object.freeze(view) as CatalogComponent[]));
  }
  return view;
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
