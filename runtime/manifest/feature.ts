/**
 * What the manifest layer knows of an agent feature: the format half of its descriptor. Each feature
 * folder describes its manifest key here (schema fragment, normaliser, checks, reserved routes); the
 * loader receives the feature list as a parameter (gen and `serveManifest` pass it in) and imports no
 * feature, so the format sits below every feature in the layering and a feature is one folder plus
 * one list entry. The serving half (`build`, OpenAPI paths, serve options) extends this in
 * `runtime/feature/`.
 */
import type { AgentSpec, JsonSchema, WorkflowSpec } from "../spec/index.js";
import type { DiagnosticCode } from "./codes.js";
import type { Position } from "./diagnostics/create.js";
import type { RawComponent, RawFields } from "./manifest-types.js";
import type { Path } from "./source-file.js";

/** A key of the manifest format whose endpoints this version does not serve yet (warning MF1315). */
export interface PendingKey {
  /** Where it is in an agent manifest, e.g. `["orchestration", "natural"]`. */
  readonly path: readonly string[];
  /** What it would serve, for the warning: `POST /orchestrate/natural`. */
  readonly serves: string;
}

/** A feature's part of manifest.schema.json: the agent property under its key, and the definitions it refers to. */
export interface FeatureSchema {
  readonly property: JsonSchema;
  /** Named schemas the property refers to as `#/definitions/<name>`. @defaultValue none */
  readonly definitions?: Readonly<Record<string, JsonSchema>>;
}

/** What is at a path, not following a link. */
export interface FileInfo {
  readonly kind: "file" | "folder" | "link" | "other";
  readonly bytes: number;
}

/**
 * Read access to the files a manifest names beside it (an agent's skill folders). Paths are as
 * diagnostics show them: relative to the cwd, `/` separators. Synchronous, as the loader is; gen and
 * `loadComponentFile` pass the file system (`createManifestFiles`), manifests given as text have none.
 * Failures other than "nothing there" (permission, a folder read as a file) throw Node's fs errors.
 */
export interface ManifestFiles {
  /** What is at `path`; undefined when nothing is. */
  stat(path: string): FileInfo | undefined;
  /** The names in the folder at `path`, sorted by code unit. */
  list(path: string): readonly string[];
  /** At most `maxBytes` + 1 bytes of the file at `path` (one more, so a file that grew past its limit is seen). */
  read(path: string, maxBytes: number): Uint8Array;
}

/** What a feature's checks within one manifest may use. */
export interface FeatureCheckContext {
  report(code: DiagnosticCode, path: Path, message: string): void;
  /**
   * Reports a problem in another file the manifest names (a skill's `SKILL.md`); `text`, when given,
   * is that file's content, so pretty output can show the line.
   */
  reportAt(code: DiagnosticCode, at: { readonly file: string; readonly position: Position; readonly text?: string }, message: string): void;
  /** The manifest's own file (relative to the cwd, `/` separators): where paths in it are relative to. */
  readonly file: string;
  /** The files beside the manifest; undefined when it was given as text alone. */
  readonly files: ManifestFiles | undefined;
  /** The line of the value at `path`, for messages that point at an earlier declaration. */
  lineOf(path: Path): number;
  /** The checks every field list gets (duplicate names, enums, examples, depth). */
  checkFields(fields: RawFields | undefined, path: Path): void;
}

/** What a feature's checks across manifests may use. */
export interface FeatureLinkContext {
  report(code: DiagnosticCode, path: Path, message: string): void;
  /** Whether some manifest declares a workflow of that name (one that failed its schema counts). */
  knowsWorkflow(name: string): boolean;
  /** ` (did you mean \`x\`?)` for the closest of `names`, or "". */
  didYouMean(name: string, names: Iterable<string>): string;
  /** Names of the workflow manifests that passed their schema. */
  readonly workflowNames: readonly string[];
  /**
   * Capability names offered by the agent and the components it uses; undefined when some used
   * component did not load (a broken manifest would otherwise cause noise).
   */
  readonly offered: ReadonlySet<string> | undefined;
}

/** A workflow an agent names, for the data-flow checks of its use (MF1415, MF1417). */
export interface WorkflowReference {
  readonly name: string;
  readonly path: Path;
  /** Served as `POST /orchestrate/<name>` (a reserved route name cannot be). */
  readonly served: boolean;
}

/** A top-level name the generated module declares for a feature's part (checked for clashes, MF1321). */
export interface ModuleName {
  readonly name: string;
  readonly path: Path;
  /** For the message: `task type \`packing\``. */
  readonly from: string;
  readonly kind: "component" | "capability" | "task" | "workflow";
}

/** What normalising a feature's part may read besides the manifest. */
export interface NormaliseContext {
  /** The checked workflow specs by name; empty for a manifest loaded on its own. */
  readonly workflows: ReadonlyMap<string, WorkflowSpec>;
  /** Every workflow name some feature of this agent refers to (`workflows()` of each), in list order. */
  readonly referenced: readonly string[];
  /** The manifest's own file (relative to the cwd, `/` separators); "" when unknown. */
  readonly file: string;
  /** The files beside the manifest; undefined when it was given as text alone. */
  readonly files: ManifestFiles | undefined;
}

/** The agent manifest as a feature reads it (features add their keys to `RawAgentFeatures`). */
export type RawAgent = RawComponent & { readonly kind: "agent" };

/** The format half of an agent feature. */
export interface ManifestFeature {
  /** The top-level key of an agent manifest that configures it (`tasks`, `scheduled`). */
  readonly key: string;
  /** Its part of manifest.schema.json. */
  readonly schema: FeatureSchema;
  /** Paths the feature owns on an agent; a capability endpoint may not take one (MF1306). */
  readonly routePrefixes: readonly string[];
  /** Keys the format accepts but the feature does not serve yet (MF1315). @defaultValue none */
  readonly pending?: readonly PendingKey[];
  /**
   * The feature's part of the agent spec with every default explicit: an object whose keys are
   * added to the spec in feature-list order (so the embedded spec is byte-stable), `{}` for none.
   */
  normalise(raw: RawAgent, context: NormaliseContext): Partial<AgentSpec>;
  /** Checks within one manifest that the schema cannot express. */
  check?(raw: RawAgent, context: FeatureCheckContext): void;
  /** Checks against the other manifests of the project. */
  link?(raw: RawAgent, context: FeatureLinkContext): void;
  /** The workflows this feature's part names. */
  workflows?(raw: RawAgent): readonly WorkflowReference[];
  /** Names the generated module declares for this feature's part (`<Type>TaskInput`, …). */
  moduleNames?(raw: RawAgent): readonly ModuleName[];
  /** OpenAPI operationIds of this feature's paths that a snake_case capability name could take (`query`). */
  operations?(raw: RawAgent): Readonly<Record<string, string>>;
  /** Whether the agent runs background workers (a deployment may then split it into api and worker pods). */
  runsWorkers?(raw: RawAgent): boolean;
}

/** Every workflow the features of a list name in an agent manifest, in list order (a name may repeat). */
export function featureWorkflows(raw: RawAgent, features: readonly ManifestFeature[]): WorkflowReference[] {
  return features.flatMap((feature) => feature.workflows?.(raw) ?? []);
}
