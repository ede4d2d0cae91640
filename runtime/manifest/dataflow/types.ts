/**
 * What the workflow checker reads and what it reports. The checker is pure: gen runs it against the
 * manifests it loaded, the YAML workflow engine against the live discovery catalog, so everything it
 * needs about other components comes through `CheckContext`.
 */
import type { FieldType, FieldsSpec, WorkflowSpec } from "../../spec/index.js";

/** The shape of a value as written (`max_length`, not `maxLength`): a capability field without `name`. */
export interface ValueDocument {
  readonly type: FieldType;
  readonly description?: string;
  readonly example?: unknown;
  readonly enum?: readonly (string | number | boolean)[];
  readonly items?: ValueDocument;
  readonly fields?: FieldsDocument;
  readonly max_length?: number;
}

export interface FieldsDocument {
  readonly required?: readonly FieldDocument[];
  readonly optional?: readonly FieldDocument[];
}

export interface FieldDocument extends ValueDocument {
  readonly name: string;
}

/** One declared workflow input, as written: a field's shape plus `required`. */
export interface WorkflowInputDocument extends ValueDocument {
  readonly required?: boolean;
}

/** One step as written: exactly one of `tool` | `agent` (the meta-schema guarantees it). */
export interface WorkflowStepDocument {
  readonly name: string;
  readonly tool?: string;
  readonly agent?: string;
  readonly action: string;
  readonly inputs?: Readonly<Record<string, unknown>>;
  readonly depends_on?: readonly string[];
  readonly timeout?: string;
  readonly retry?: number;
  readonly on_error?: "fail" | "continue";
}

/** A workflow manifest once it has passed the meta-schema (manifest.schema.json, `#/definitions/workflow`). */
export interface WorkflowDocument {
  readonly kind: "workflow";
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly inputs: Readonly<Record<string, WorkflowInputDocument>>;
  readonly steps: readonly WorkflowStepDocument[];
  readonly outputs: Readonly<Record<string, unknown>>;
}

export interface CapabilityView {
  readonly name: string;
  /** Absent: the capability takes any input. */
  readonly input?: FieldsSpec;
  /** Absent: free-form output, any field may be referenced and its type is unknown. */
  readonly output?: FieldsSpec;
}

export interface ComponentView {
  readonly kind: "tool" | "agent";
  readonly capabilities: readonly CapabilityView[];
}

export interface CheckContext {
  /** The component with that manifest name, or undefined when there is none. */
  component(name: string): ComponentView | undefined;
  /** Every component name, for "did you mean" when a step names an unknown one. Optional. */
  componentNames?(): readonly string[];
  /** When set, steps may only call these components (the agent's `uses`). */
  readonly allowed?: ReadonlySet<string>;
  /**
   * Names that exist but could not be loaded (a manifest with errors of its own). Steps calling them
   * are not checked further, so one broken manifest does not cascade into every workflow using it.
   */
  isBroken?(name: string): boolean;
}

export interface WorkflowIssue {
  /** A stable MF14xx code (see `WORKFLOW_CHECK_CODES`). */
  readonly code: string;
  readonly severity: "error" | "warning";
  /** Where in the document: mapping keys and list indexes, e.g. `["steps", 2, "inputs", "lat"]`. */
  readonly path: readonly (string | number)[];
  /**
   * When the problem is inside a string value (an expression in a longer text), the index in that
   * string where it starts, so a caller holding the source can point at the `${`.
   */
  readonly offset?: number;
  /** `"key"`: the problem is the mapping key at `path` (an undeclared input), not its value. */
  readonly at?: "key";
  readonly message: string;
}

export interface CheckResult {
  /** In document order (steps, then outputs, then whole-workflow findings). */
  readonly issues: WorkflowIssue[];
  /** Present when no issue is an error. */
  readonly spec?: WorkflowSpec;
}
