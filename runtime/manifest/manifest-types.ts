/**
 * The manifest as written, once it has passed manifest.schema.json. These types mirror the schema; the
 * schema is what guarantees them, so values are narrowed to them only after it has run.
 */
import type { FieldDocument, FieldsDocument, ValueDocument, WorkflowDocument } from "./dataflow/types.js";
import type { CapabilityType } from "../spec/index.js";

// One definition with the workflow checker's: a workflow input takes the same shape as a field.
export type RawValue = ValueDocument;
export type RawField = FieldDocument;
export type RawFields = FieldsDocument;

export interface RawCapability {
  readonly name: string;
  readonly description: string;
  readonly type?: CapabilityType;
  readonly internal?: boolean;
  readonly effects?: "lasting";
  readonly endpoint?: string;
  readonly input?: RawFields;
  readonly output?: RawFields;
}

/**
 * The keys agent features add to an agent manifest. Each feature declares its own in its folder's
 * `manifest.ts` (module augmentation), so this layer lists none of them and imports no feature.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each feature's module augmentation.
export interface RawAgentFeatures {}

export interface RawComponent extends RawAgentFeatures {
  readonly kind: "tool" | "agent";
  readonly name: string;
  readonly description: string;
  readonly version?: string;
  readonly port?: number;
  readonly mcp?: boolean;
  readonly capabilities?: readonly RawCapability[];
  // Agents only (the schema rejects them on tools).
  readonly uses?: readonly RawUse[];
}

/**
 * A `uses` entry: a component name, or `{name, planner}` where `planner` is false (the natural-mode
 * planner sees none of the component's capabilities) or the only capabilities it may see. The typed
 * client always has every capability.
 */
export type RawUse = string | { readonly name: string; readonly planner?: boolean | readonly string[] };

/** The component a `uses` entry names. */
export const usedName = (use: RawUse): string => (typeof use === "string" ? use : use.name);

/** Workflow documents are read by the runtime too (the YAML workflow engine), so their types live there. */
export type { WorkflowStepDocument as RawStep, WorkflowDocument as RawWorkflow } from "./dataflow/types.js";
export interface RawDeployedComponent {
  readonly entry?: string;
  readonly args?: readonly string[];
  readonly replicas?: number;
  readonly workers?: number;
  readonly resources?: { readonly cpu?: string; readonly memory?: string; readonly cpu_limit?: string; readonly memory_limit?: string };
  readonly env?: Readonly<Record<string, string>>;
  readonly secrets?: readonly string[];
}

/** `kind: deployment`: how gen writes the network's Dockerfiles and Kubernetes manifests. */
export interface RawDeployment {
  readonly kind: "deployment";
  readonly name: string;
  readonly description?: string;
  readonly namespace?: string;
  readonly image?: { readonly registry?: string; readonly tag?: string };
  readonly node?: string;
  readonly build?: string;
  readonly redis?: "bundled" | "external";
  readonly telemetry?: { readonly endpoint?: string };
  readonly components: Readonly<Record<string, RawDeployedComponent>>;
}

/** `kind: mcp`: an external MCP server used as a tool (its tools come from the lock file beside it). */
export interface RawMcp {
  readonly kind: "mcp";
  readonly name: string;
  readonly description: string;
  readonly url?: string;
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: readonly string[];
  readonly auth?: { readonly token_env: string };
  readonly timeout?: string;
}

/** `kind: a2a`: a remote A2A agent used as a tool (its skills come from the lock file beside it). */
export interface RawA2a {
  readonly kind: "a2a";
  readonly name: string;
  /** Absent: the card's description. */
  readonly description?: string;
  readonly card_url: string;
  readonly auth?: { readonly token_env: string };
  readonly timeout?: string;
}

export type RawManifest = RawComponent | WorkflowDocument | RawDeployment | RawMcp | RawA2a;
