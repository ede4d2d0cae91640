import { createDiagnostic } from "./diagnostics/create.js";
import type { Diagnostic, ManifestKind } from "./project.js";
import { valuePosition, type SourceFile } from "./source-file.js";
import { closest } from "./dataflow/index.js";
import { quote } from "./values.js";

export const MANIFEST_KINDS: readonly ManifestKind[] = ["tool", "agent", "workflow", "deployment", "mcp", "a2a"];

export function isManifestKind(value: unknown): value is ManifestKind {
  return typeof value === "string" && (MANIFEST_KINDS as readonly string[]).includes(value);
}

/**
 * `kind` decides which shape the rest of the file must have, so it is checked before the meta-schema:
 * without it every other key would be reported as unknown.
 */
export function checkKind(source: SourceFile, value: Record<string, unknown>): Diagnostic | undefined {
  if (!Object.hasOwn(value, "kind")) {
    return createDiagnostic(
      "MF1014",
      source.file,
      valuePosition(source, []),
      "missing `kind`: a manifest starts with `kind: tool`, `kind: agent`, `kind: workflow`, `kind: mcp`, `kind: a2a` or `kind: deployment`",
    );
  }
  const kind = value["kind"];
  if (isManifestKind(kind)) return undefined;
  const guess = typeof kind === "string" ? closest(kind, MANIFEST_KINDS) : undefined;
  const hint = guess === undefined ? "" : ` (did you mean "${guess}"?)`;
  return createDiagnostic(
    "MF1015",
    source.file,
    valuePosition(source, ["kind"]),
    `\`kind\` must be one of tool, agent, workflow, mcp, a2a, deployment; got ${quote(kind)}${hint}`,
  );
}
