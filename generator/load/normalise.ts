/**
 * Manifest → ComponentSpec. Defaults are filled in here, once, so generated code and the runtime see
 * the same explicit values. Property order is fixed because the spec is embedded in generated files.
 */
import { toCamelCase } from "../../runtime/spec/names.js";
import type { CapabilitySpec, ComponentSpec, FieldSpec, FieldsSpec, ValueSpec } from "../../runtime/spec/types.js";
import type { RawCapability, RawComponent, RawField, RawFields, RawValue } from "./manifest-types.js";

export const DEFAULT_VERSION = "1.0.0";

export function defaultEndpoint(capabilityName: string): string {
  return `/api/capabilities/${capabilityName}`;
}

export function normaliseValue(raw: RawValue): ValueSpec {
  return {
    type: raw.type,
    ...(raw.description !== undefined && { description: raw.description }),
    ...(raw.example !== undefined && { example: raw.example }),
    ...(raw.enum !== undefined && { enum: [...raw.enum] }),
    ...(raw.items !== undefined && { items: normaliseValue(raw.items) }),
    ...(raw.fields !== undefined && { fields: normaliseFields(raw.fields) }),
  };
}

function normaliseField(raw: RawField): FieldSpec {
  return { name: raw.name, ...normaliseValue(raw) };
}

export function normaliseFields(raw: RawFields): FieldsSpec {
  return { required: (raw.required ?? []).map(normaliseField), optional: (raw.optional ?? []).map(normaliseField) };
}

function normaliseCapability(raw: RawCapability): CapabilitySpec {
  return {
    name: raw.name,
    key: toCamelCase(raw.name),
    description: raw.description,
    type: raw.type ?? "tool",
    internal: raw.internal ?? false,
    endpoint: raw.endpoint ?? defaultEndpoint(raw.name),
    ...(raw.input !== undefined && { input: normaliseFields(raw.input) }),
    ...(raw.output !== undefined && { output: normaliseFields(raw.output) }),
  };
}

export function normaliseComponent(raw: RawComponent): ComponentSpec {
  return {
    kind: raw.kind,
    name: raw.name,
    description: raw.description,
    version: raw.version ?? DEFAULT_VERSION,
    ...(raw.port !== undefined && { port: raw.port }),
    capabilities: (raw.capabilities ?? []).map(normaliseCapability),
  };
}
