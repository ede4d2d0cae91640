/**
 * The normalised component model. The generator builds it from a manifest and embeds it, as plain
 * data, in generated code; the runtime serves from it. It is JSON-serialisable on purpose: the same
 * value comes out of `manifold gen` and out of loading a manifest at run time.
 */

export type FieldType = "string" | "number" | "integer" | "boolean" | "object" | "array" | "any";
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
  /** Longest accepted `string`, in characters. */
  readonly maxLength?: number;
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
  /** `lasting`: a call leaves something acting later for the caller (a schedule); hidden from natural planners unless allowed. */
  readonly effects?: "lasting";
  readonly endpoint: string;
  /** Absent when the manifest declares no `input`: no input schema, an empty-object request body. */
  readonly input?: FieldsSpec;
  readonly output?: FieldsSpec;
  /** Capabilities of a `kind: mcp` component only: the external server's tool this capability calls. */
  readonly mcpTool?: McpToolSpec;
  /** Capabilities of a `kind: a2a` component only: the remote agent's skill this capability calls (endpoint `a2a:<skill id>`). */
  readonly a2aSkill?: A2aSkillSpec;
}

/** One skill of a remote A2A agent, as its lock file snapshotted the agent card. */
export interface A2aSkillSpec {
  readonly id: string;
}

/** Where a `kind: a2a` component's remote agent is. Secrets are never here: `tokenEnv` names the variable. */
export interface A2aAgentSpec {
  readonly cardUrl: string;
  /** The JSON-RPC endpoint the card names. */
  readonly url: string;
  /** The variable holding the bearer token sent to the remote agent. */
  readonly tokenEnv?: string;
  /** Per call, following the remote task to its end. @defaultValue 30000 */
  readonly timeoutMs?: number;
  /** The lock file's content hash the spec was generated from. */
  readonly hash: string;
}

/**
 * One tool of an external MCP server as its lock file snapshotted it. `input`/`output` of the
 * capability are the schemas mapped to manifest fields (for types, the planner's catalog and the
 * data-flow checker); the raw schemas stay here because the server, not the mapping, is the truth.
 */
export interface McpToolSpec {
  /** The tool's name on the server (the capability's `name` is its snake_case form). */
  readonly name: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** Absent when the server declares none: the capability's output is then `{ text }`. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

/**
 * Where a `kind: mcp` component's server is and how to reach it. Exactly one of `url` (Streamable
 * HTTP) and `command` (stdio) is set. Secrets are never here: `tokenEnv` names the variable.
 */
export interface McpServerSpec {
  readonly url?: string;
  readonly command?: string;
  readonly args?: readonly string[];
  /** Names of environment variables handed to a stdio server (besides the SDK's safe defaults). */
  readonly env?: readonly string[];
  /** The variable holding the bearer token sent to an HTTP server. */
  readonly tokenEnv?: string;
  /** Per call. @defaultValue 30000 */
  readonly timeoutMs?: number;
  /** The lock file's content hash the spec was generated from. */
  readonly hash: string;
}

export interface ComponentSpec {
  readonly kind: ComponentKind;
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly port?: number;
  /** The manifest's `mcp`: serve MCP at `/mcp` too (`MANIFOLD_MCP_ENABLED` overrides it at run time). Absent when the manifest says nothing. */
  readonly mcp?: boolean;
  readonly capabilities: readonly CapabilitySpec[];
  /** Agents only: what the framework serves beside the agent's own capabilities. */
  readonly agent?: AgentSpec;
  /** `kind: mcp` manifests only: an external MCP server, called, never served (`kind` is then "tool"). */
  readonly mcpServer?: McpServerSpec;
  /** `kind: a2a` manifests only: a remote A2A agent, called, never served (`kind` is then "tool"). */
  readonly a2aAgent?: A2aAgentSpec;
}

/**
 * One declared workflow input, `${inputs.<name>}`: a field's shape (`enum`, `items`, `fields`,
 * `maxLength`) plus whether callers must give it. The workflow's endpoint validates a call against
 * this shape, so a body that does not fit is refused (400) before any step runs.
 */
export interface WorkflowInputSpec {
  readonly name: string;
  readonly type: FieldType;
  readonly required: boolean;
  readonly description?: string;
  readonly example?: unknown;
  readonly enum?: readonly (string | number | boolean)[];
  readonly items?: ValueSpec;
  readonly fields?: FieldsSpec;
  readonly maxLength?: number;
}

/** One call of a workflow, after checking: `dependsOn` includes the dependencies gen added. */
export interface WorkflowStepSpec {
  readonly name: string;
  /** The component called: a tool or an agent, by manifest name. */
  readonly component: string;
  readonly componentKind: ComponentKind;
  /** The capability of that component (`action` in the manifest). */
  readonly capability: string;
  /** Input values, possibly holding `${…}` expressions; whole-value expressions keep their JSON type. */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** Sorted step names that must finish before this one starts. */
  readonly dependsOn: readonly string[];
  readonly timeoutMs?: number;
  /** Extra attempts after a failure. */
  readonly retry: number;
  readonly onError: "fail" | "continue";
}

/** One named workflow result: a value or `${…}` expressions, and its type when the checker knows it. */
export interface WorkflowOutputSpec {
  readonly name: string;
  readonly value: unknown;
  /** The inferred type; absent when it cannot be known statically (then `unknown`). */
  readonly type?: ValueSpec;
  /** False when the value can be absent (it references an optional field or a step that may be skipped). */
  readonly required: boolean;
}

export interface WorkflowSpec {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly inputs: readonly WorkflowInputSpec[];
  readonly steps: readonly WorkflowStepSpec[];
  readonly outputs: readonly WorkflowOutputSpec[];
}

/** A task type an agent accepts on `POST /api/v1/tasks`. */
export interface TaskTypeSpec {
  readonly type: string;
  /** camelCase of `type`: the key of its typed task client. */
  readonly key: string;
  readonly description?: string;
  /** Runs this workflow (one of the agent's `workflows`) with no handler code. */
  readonly workflow?: string;
  /** Default per-task timeout. */
  readonly timeoutMs?: number;
  /** Declared input (a workflow task takes the workflow's inputs). Absent: any object. */
  readonly input?: FieldsSpec;
  readonly output?: FieldsSpec;
}

/**
 * The parts agent features add to an agent's spec. Each feature declares its own in its folder's
 * `manifest.ts` (module augmentation) beside its normaliser, so the spec is assembled from the
 * features' fragments and this layer names none of them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each feature's module augmentation.
export interface AgentFeatureSpecs {}

export interface AgentSpec extends AgentFeatureSpecs {
  /** Component names the agent calls, sorted. */
  readonly uses: readonly string[];
  /**
   * Per used component whose `uses` entry limits the planner (`planner: false` or a list), the only
   * capabilities the natural-mode planner may see and plan, sorted (empty: none). Absent: no limit.
   * Typed clients are not affected.
   */
  readonly plannerCapabilities?: Readonly<Record<string, readonly string[]>>;
}

/** Routes the framework owns on every component; a capability endpoint may not take one of them. */
export const FRAMEWORK_ROUTES: readonly string[] = ["/health", "/api/capabilities", "/openapi.json"];

/** Prefix of the per-capability schema route, `GET /api/capabilities/{name}/schema`. */
export const SCHEMA_ROUTE_PREFIX = "/api/capabilities/";
