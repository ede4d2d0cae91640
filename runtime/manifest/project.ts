import type { ComponentSpec } from "../spec/index.js";
import type { DiagnosticCode, Severity } from "./codes.js";

export type { Severity } from "./codes.js";

/** One positioned finding. `file` is as given to the loader (relative to the cwd, `/` separators). */
export interface Diagnostic {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  readonly severity: Severity;
  /** Stable `MF####` code of the one table (codes.ts). */
  readonly code: DiagnosticCode;
  readonly message: string;
}

export type ManifestKind = "tool" | "agent" | "workflow" | "deployment";

/** One manifest file that parsed and passed the meta-schema. */
export interface LoadedManifest {
  /** Path relative to the cwd with `/` separators, e.g. `manifests/travel/weather-service.yaml`. */
  readonly file: string;
  readonly kind: ManifestKind;
  readonly name: string;
  /** The normalised component (tools and agents); absent for workflows and deployments. */
  readonly component?: ComponentSpec;
  /** The manifest as parsed (plain JS values), for the parts later stages read (uses, workflows, …). */
  readonly document: Record<string, unknown>;
}

export interface Project {
  /** Sorted by kind then name, so everything downstream is deterministic. */
  readonly manifests: readonly LoadedManifest[];
  /** Sorted by file, line, column. */
  readonly diagnostics: readonly Diagnostic[];
  /**
   * The text of every manifest that was read, by `file`; pass it to `formatDiagnostics` so pretty
   * output can show the offending line.
   */
  readonly sources?: ReadonlyMap<string, string>;
}

export function hasErrors(project: Pick<Project, "diagnostics">): boolean {
  return project.diagnostics.some((d) => d.severity === "error");
}
