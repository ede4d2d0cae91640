import type { CapabilitySpec, FieldSpec, FieldsSpec, ValueSpec } from "./types.js";

export interface FieldSummary {
  readonly required_fields: readonly WireField[];
  readonly optional_fields: readonly WireField[];
}

export type WireValue = Omit<ValueSpec, "items" | "fields"> & { items?: WireValue; fields?: FieldSummary };
export type WireField = WireValue & { name: string };

/** The capability wire object of `GET /api/capabilities` and of the registry (DESIGN §6). */
export interface CapabilityWire {
  readonly name: string;
  readonly description: string;
  readonly endpoint: string;
  readonly type: string;
  readonly internal: boolean;
  /** `lasting`: hidden from natural planners unless the agent allows it (issue 32, H2). */
  readonly effects?: "lasting";
  readonly input_summary?: FieldSummary;
  readonly output_summary?: FieldSummary;
}

function wireValue(value: ValueSpec): WireValue {
  const { items, fields, ...rest } = value;
  const out: WireValue = { ...rest };
  if (items !== undefined) out.items = wireValue(items);
  if (fields !== undefined) out.fields = summary(fields);
  return out;
}

function wireField({ name, ...value }: FieldSpec): WireField {
  return { name, ...wireValue(value) };
}

export function summary(fields: FieldsSpec): FieldSummary {
  return { required_fields: fields.required.map(wireField), optional_fields: fields.optional.map(wireField) };
}

export function capabilityWire(capability: CapabilitySpec): CapabilityWire {
  return {
    name: capability.name,
    description: capability.description,
    endpoint: capability.endpoint,
    type: capability.type,
    internal: capability.internal,
    ...(capability.effects === undefined ? {} : { effects: capability.effects }),
    ...(capability.input === undefined ? {} : { input_summary: summary(capability.input) }),
    ...(capability.output === undefined ? {} : { output_summary: summary(capability.output) }),
  };
}

const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);

function valueFromWire(value: WireValue): ValueSpec {
  const { items, fields, ...rest } = value;
  const out: { -readonly [K in keyof ValueSpec]: ValueSpec[K] } = { ...rest };
  if (items !== undefined && items !== null) out.items = valueFromWire(items);
  if (fields !== undefined && fields !== null) out.fields = fieldsFromSummary(fields);
  return out;
}

/**
 * A capability summary from the wire (a registry entry, `GET /api/capabilities`) back into the
 * FieldsSpec the checker and the schemas read: the inverse of `summary`. Summaries come from other
 * processes, so missing lists are read as empty rather than trusted.
 */
export function fieldsFromSummary(fields: FieldSummary): FieldsSpec {
  const field = (wire: unknown): FieldSpec => {
    const { name, ...value } = wire as WireField;
    return { name, ...valueFromWire(value) };
  };
  return { required: list(fields.required_fields).map(field), optional: list(fields.optional_fields).map(field) };
}
