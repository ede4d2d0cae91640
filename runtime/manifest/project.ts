import type { A2aAgentSpec, ComponentSpec, McpServerSpec } from "../spec/index.js";
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

export type ManifestKind = "tool" | "agent" | "workflow" | "deployment" | "mcp" | "a2a";

/** One manifest file that parsed and passed the meta-schema. */
export interface LoadedManifest {
  /** Path relative to the cwd with `/` separators, e.g. `manifests/travel/weather-service.yaml`. */
  readonly file: string;
  readonly kind: ManifestKind;
  readonly name: string;
  /** The normalised component (tools, agents, MCP servers: `kind: "tool"` with `mcpServer`); absent for workflows and deployments. */
  readonly component?: ComponentSpec;
  /** The manifest as parsed (plain JS values), for the parts later stages read (uses, workflows, …). */
  readonly document: Record<string, unknown>;
}

/** A `kind: mcp` manifest as gen's lock step needs it, whatever the state of its lock. */
export interface McpManifestInfo {
  readonly file: string;
  readonly name: string;
  /** Where the server is: what gen connects to. */
  readonly address: Omit<McpServerSpec, "hash">;
  /** The lock file's path, as diagnostics show it (beside the manifest). */
  readonly lockFile: string;
  /** "ok": read and consistent; "missing": no file; "invalid": MF1603. */
  readonly lock: "ok" | "missing" | "invalid";
  /** Where the server's address is written (`url` or `command`), for gen's diagnostics. */
  readonly at: { readonly line: number; readonly column: number };
}

/** A `kind: a2a` manifest as gen's lock step needs it, whatever the state of its lock. */
export interface A2aManifestInfo {
  readonly file: string;
  readonly name: string;
  /** Where the card is and how to fetch it. */
  readonly address: Pick<A2aAgentSpec, "cardUrl" | "tokenEnv" | "timeoutMs">;
  /** The lock file's path, as diagnostics show it (beside the manifest). */
  readonly lockFile: string;
  readonly lock: "ok" | "missing" | "invalid";
  /** Where `card_url` is written, for gen's diagnostics. */
  readonly at: { readonly line: number; readonly column: number };
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
  /**
   * Every `kind: mcp` manifest whose address is valid, whatever the state of its lock file: what
   * `manifold gen` fetches locks for. Sorted by file.
   */
  readonly mcpServers?: readonly McpManifestInfo[];
  /** Every `kind: a2a` manifest whose card URL is valid, whatever the state of its lock file. Sorted by file. */
  readonly a2aAgents?: readonly A2aManifestInfo[];
}

export function hasErrors(project: Pick<Project, "diagnostics">): boolean {
  return project.diagnostics.some((d) => d.severity === "error");
}
