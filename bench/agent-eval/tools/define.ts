/**
 * How the agent-eval tools are written: a compact field notation turned into the runtime's
 * `ComponentSpec`, plus the two refusals a real API gives a caller that guessed wrong (400 with the
 * pointer and a sentence, 404). Handlers are deterministic: the same input always gets the same
 * answer, so a scenario's outcome depends only on what the orchestrator sends.
 */
import { ManifoldError } from "../../../runtime/errors/index.js";
import type { CapabilitySpec, ComponentSpec, FieldSpec, FieldsSpec, FieldType, ValueSpec } from "../../../runtime/spec/types.js";

/** `"number"`, or a value spec; a name ending in `?` is optional. */
export type Shape = FieldType | (Omit<ValueSpec, "items" | "fields"> & { readonly items?: Shape; readonly fields?: Readonly<Record<string, Shape>> });

export type Handler = (input: Record<string, any>) => unknown;

export interface CapabilityDefinition {
  readonly description: string;
  readonly input: Readonly<Record<string, Shape>>;
  /** Absent: a free-form output (the planner cannot know its fields, the data-flow check cannot either). */
  readonly output?: Readonly<Record<string, Shape>>;
  readonly handler: Handler;
}

export interface BenchTool {
  readonly spec: ComponentSpec;
  readonly handlers: Readonly<Record<string, Handler>>;
}

/** The day the scenarios live in: "tomorrow" is 2025-06-11, so a date is never relative to the real clock. */
export const TODAY = "2025-06-10";

function value(shape: Shape): ValueSpec {
  if (typeof shape === "string") return { type: shape };
  const { items, fields: nested, ...rest } = shape;
  return { ...rest, ...(items === undefined ? {} : { items: value(items) }), ...(nested === undefined ? {} : { fields: fields(nested) }) };
}

export function fields(map: Readonly<Record<string, Shape>>): FieldsSpec {
  const required: FieldSpec[] = [];
  const optional: FieldSpec[] = [];
  for (const [key, shape] of Object.entries(map)) {
    const optionalField = key.endsWith("?");
    const name = optionalField ? key.slice(0, -1) : key;
    (optionalField ? optional : required).push({ name, ...value(shape) });
  }
  return { required, optional };
}

const keyOf = (capability: string): string => capability.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

export function defineTool(name: string, description: string, capabilities: Readonly<Record<string, CapabilityDefinition>>): BenchTool {
  const specs: CapabilitySpec[] = Object.entries(capabilities).map(([capability, definition]) => ({
    name: capability,
    key: keyOf(capability),
    description: definition.description,
    type: "tool",
    internal: false,
    endpoint: `/api/capabilities/${capability}`,
    input: fields(definition.input),
    ...(definition.output === undefined ? {} : { output: fields(definition.output) }),
  }));
  return {
    spec: { kind: "tool", name, description, version: "1.0.0", capabilities: specs },
    // Served handlers are keyed as generated code keys them: the capability's camelCase key.
    handlers: Object.fromEntries(Object.entries(capabilities).map(([capability, definition]) => [keyOf(capability), definition.handler])),
  };
}

/** A 400 as the tool's own validation would give it: the field, and what it must look like. */
export function invalid(field: string, message: string): ManifoldError {
  return new ManifoldError("INVALID_INPUT", `${field} ${message}`, { details: [{ pointer: `/${field}`, message }] });
}

export function notFound(message: string): ManifoldError {
  return new ManifoldError("NOT_FOUND", message);
}

export function conflict(message: string): ManifoldError {
  return new ManifoldError("CONFLICT", message);
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A `YYYY-MM-DD` date from today on (at most `days` ahead), or the 400 a date API gives. */
export function checkDate(field: string, text: string, days = 365): string {
  if (!ISO_DATE.test(text) || Number.isNaN(Date.parse(text))) throw invalid(field, `must be a date as YYYY-MM-DD (today is ${TODAY})`);
  const ahead = (Date.parse(text) - Date.parse(TODAY)) / 86_400_000;
  if (ahead < 0) throw invalid(field, `is in the past (today is ${TODAY})`);
  if (ahead > days) throw invalid(field, `must be within ${days} days of today (${TODAY})`);
  return text;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;

export function checkEmail(field: string, text: string): string {
  if (!EMAIL.test(text)) throw invalid(field, "must be an email address (look the person up first)");
  return text;
}

/** A stable small number for a string, for deterministic ids and prices. */
export function digest(text: string): number {
  let hash = 7;
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) % 9973;
  return hash;
}
