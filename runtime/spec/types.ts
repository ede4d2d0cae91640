/**
 * The normalised component model. The generator builds it from a manifest and embeds it, as plain
 * data, in generated code; the runtime serves from it. It is JSON-serialisable on purpose: the same
 * value comes out of `manifold gen` and out of loading a manifest at run time.
 */

export type FieldType = "string" | "number" | "integer" | "boolean" | "object" | "array";
export type CapabilityType = "tool" | "reasoning" | "orchestrator";
export type ComponentKind = "tool" | "agent";

/** The shape of a value: a field without its name (also the shape of an array's `items`). */
export interface ValueSpec {
  readonly type: FieldType;
  readonly description?: string;
  readonly example?: unknown;
  readonly enum?: readonly (string | number | boolean)[];
  /** Element shape of an `array`. */
  readonly items?: ValueSpec;
  /** Declared members of an `object`; without it the object is free-form. */
  readonly fields?: FieldsSpec;
}

export interface FieldSpec extends ValueSpec {
  readonly name: string;
}

export interface FieldsSpec {
  readonly required: readonly FieldSpec[];
  readonly optional: readonly FieldSpec[];
}

export interface CapabilitySpec {
  readonly name: string;
  /** camelCase of `name`: the handler and client method name. Embedded so old generated code keeps its names. */
  readonly key: string;
  readonly description: string;
  readonly type: CapabilityType;
  readonly internal: boolean;
  readonly endpoint: string;
  /** Absent when the manifest declares no `input`: no input schema, an empty-object request body. */
  readonly input?: FieldsSpec;
  readonly output?: FieldsSpec;
}

export interface ComponentSpec {
  readonly kind: ComponentKind;
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly port?: number;
  readonly capabilities: readonly CapabilitySpec[];
}

/** Routes the framework owns on every component; a capability endpoint may not take one of them. */
export const FRAMEWORK_ROUTES: readonly string[] = ["/health", "/api/capabilities", "/openapi.json"];

/** Prefix of the per-capability schema route, `GET /api/capabilities/{name}/schema`. */
export const SCHEMA_ROUTE_PREFIX = "/api/capabilities/";
