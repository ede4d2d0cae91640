/**
 * bench:natural-scale's network, generated deterministically: the two components the request really
 * calls (`geo`, `weather`: served on loopback by natural-scale-tools.ts) plus as many filler
 * components as the size needs, five capabilities each, with names, descriptions and fields like a
 * real catalog's (vendors × domains × regions, several of them weather and geo look-alikes). The
 * filler is registered but never called: its address is a port nothing listens on.
 */
import { readFileSync } from "node:fs";
import type { ComponentRegistration } from "../../runtime/discovery/index.js";
import { capabilityWire, type CapabilitySpec, type ComponentSpec, type FieldSpec } from "../../runtime/spec/index.js";

export const CAPABILITIES_PER_COMPONENT = 5;
export const REQUEST = "What will the weather be in Lyon tomorrow, 2025-06-11? Answer in Celsius.";
export const ANSWER = "Tomorrow in Lyon: 24 °C and sunny.";

/** A field as the domain table writes it: `name:type:description[:enum,values]`. */
type Field = string;
interface Template {
  readonly name: string;
  readonly description: string;
  readonly input: readonly Field[];
  readonly optional?: readonly Field[];
  readonly output: readonly Field[];
}

/** Capability templates by domain (natural-scale-domains.json): five or more each, so a component takes five of its domain's. */
const DOMAINS = JSON.parse(readFileSync(new URL("natural-scale-domains.json", import.meta.url), "utf8")) as Readonly<Record<string, readonly Template[]>>;

const VENDORS = ["acme", "northwind", "contoso", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "tyrell"];
const REGIONS = [
  "eu",
  "us",
  "uk",
  "apac",
  "latam",
  "mena",
  "nordics",
  "dach",
  "iberia",
  "benelux",
  "canada",
  "oceania",
  "africa",
  "india",
  "japan",
  "korea",
  "china",
];
const REGION_NAMES: Readonly<Record<string, string>> = {
  eu: "European",
  us: "United States",
  uk: "British",
  apac: "Asia-Pacific",
  latam: "Latin American",
  mena: "Middle East and North Africa",
  nordics: "Nordic",
  dach: "German-speaking",
  iberia: "Spanish and Portuguese",
  benelux: "Benelux",
  canada: "Canadian",
  oceania: "Australian and New Zealand",
  africa: "African",
  india: "Indian",
  japan: "Japanese",
  korea: "Korean",
  china: "Chinese",
};

function fieldOf(field: Field): FieldSpec {
  const [name = "", type, description, enumeration] = field.split(":");
  return {
    name,
    type: type as FieldSpec["type"],
    ...(description === undefined ? {} : { description }),
    ...(enumeration === undefined ? {} : { enum: enumeration.split(",") }),
  };
}

function capabilityOf(template: Template, suffix = ""): CapabilitySpec {
  return {
    name: template.name,
    key: template.name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
    description: `${template.description}${suffix}`,
    type: "tool",
    internal: false,
    endpoint: `/api/capabilities/${template.name}`,
    input: { required: template.input.map(fieldOf), optional: (template.optional ?? []).map(fieldOf) },
    output: { required: template.output.map(fieldOf), optional: [] },
  };
}

/** The two components the request calls, served for real: the first five templates of their domain. */
export const REAL_COMPONENTS: readonly ComponentSpec[] = (["geo", "weather"] as const).map((domain) => ({
  kind: "tool",
  name: domain,
  description: domain === "geo" ? "Geocoding, time zones and places worldwide" : "Forecasts and observations worldwide",
  version: "1.0.0",
  capabilities: DOMAINS[domain]!.slice(0, CAPABILITIES_PER_COMPONENT).map((t) => capabilityOf(t)),
}));

/** The plan the scripted model answers: geocode Lyon, then its forecast (coordinates passed by template). */
export const PLAN = {
  steps: [
    { step_id: "s1", agent_name: "geo", depends_on: [], metadata: { capability: "geocode", parameters: { place: "Lyon" } } },
    {
      step_id: "s2",
      agent_name: "weather",
      depends_on: ["s1"],
      metadata: {
        capability: "forecast",
        parameters: { lat: "{{s1.response.data.lat}}", lon: "{{s1.response.data.lon}}", date: "2025-06-11", units: "metric" },
      },
    },
  ],
};
/** What the scripted model selects: exactly the plan's capabilities. */
export const SELECTION = { capabilities: PLAN.steps.map((s) => ({ agent_name: s.agent_name, capability: s.metadata.capability })) };

/** The i-th filler component (i from 0): a vendor's regional service of one domain, five of its capabilities. */
function filler(i: number): ComponentSpec {
  const domains = Object.keys(DOMAINS);
  const domain = domains[i % domains.length]!;
  const vendor = VENDORS[Math.floor(i / domains.length) % VENDORS.length]!;
  const region = REGIONS[Math.floor(i / (domains.length * VENDORS.length)) % REGIONS.length]!;
  const round = Math.floor(i / (domains.length * VENDORS.length * REGIONS.length));
  const templates = DOMAINS[domain]!;
  const vendorName = vendor[0]!.toUpperCase() + vendor.slice(1);
  const suffix = ` (${vendorName}, ${REGION_NAMES[region]} coverage)`;
  return {
    kind: "tool",
    name: `${vendor}-${domain}-${region}${round === 0 ? "" : `-${round + 1}`}`,
    description: `${vendorName}'s ${domain} service for ${REGION_NAMES[region]} customers`,
    version: "1.0.0",
    // A different five of the domain's templates per component, by rotation.
    capabilities: Array.from({ length: CAPABILITIES_PER_COMPONENT }, (_, k) => capabilityOf(templates[(i + k) % templates.length]!, suffix)),
  };
}

/** The registry records of a network of `size` capabilities (a multiple of five, at least ten): the two real components first. */
export function scaleNetwork(size: number, realPorts: Readonly<Record<string, number>>): ComponentRegistration[] {
  const components = size / CAPABILITIES_PER_COMPONENT;
  if (!Number.isInteger(components) || components < REAL_COMPONENTS.length)
    throw new RangeError(`size must be a multiple of ${CAPABILITIES_PER_COMPONENT}, at least 10`);
  const specs = [...REAL_COMPONENTS, ...Array.from({ length: components - REAL_COMPONENTS.length }, (_, i) => filler(i))];
  return specs.map((spec, i) => ({
    id: `${spec.name}-${String(i).padStart(8, "0")}`,
    name: spec.name,
    type: spec.kind === "agent" ? "agent" : "tool",
    description: spec.description,
    address: "127.0.0.1",
    // Filler is never called: port 9 (discard) has no listener on loopback.
    port: realPorts[spec.name] ?? 9,
    metadata: { version: spec.version },
    capabilities: spec.capabilities.map(capabilityWire),
    health: "healthy",
  }));
}
