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
    ...(capability.input === undefined ? {} : { input_summary: summary(capability.input) }),
    ...(capability.output === undefined ? {} : { output_summary: summary(capability.output) }),
  };
}
