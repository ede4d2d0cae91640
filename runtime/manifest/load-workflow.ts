/**
 * One workflow manifest held in memory, checked against components the caller describes: the path the
 * YAML workflow engine takes at run time (its context is the live discovery catalog), with the same
 * diagnostics, codes and positions as `manifold gen`.
 */
import type { CheckContext } from "./dataflow/index.js";
import { checkWorkflow } from "./dataflow/index.js";
import type { WorkflowSpec } from "../spec/index.js";
import { START, createDiagnostic, sortDiagnostics } from "./diagnostics/create.js";
import type { Diagnostic } from "./project.js";
import { checkKind } from "./kind.js";
import type { RawWorkflow } from "./manifest-types.js";
import { parseManifest } from "./parse.js";
import { checkSchema } from "./validate-schema.js";
import { checkManifest } from "./validate-semantic.js";
import { valuePosition } from "./source-file.js";
import { issueDiagnostic } from "./check.js";

export interface WorkflowTextResult {
  /** Sorted by line and column; warnings included. */
  readonly diagnostics: Diagnostic[];
  /** The checked workflow; present only when no diagnostic is an error. */
  readonly spec?: WorkflowSpec;
}

function check(file: string, text: string, context: CheckContext): WorkflowTextResult {
  const parsed = parseManifest(file, text.startsWith("\uFEFF") ? text.slice(1) : text);
  const value = parsed.value;
  if (value === undefined) return { diagnostics: [...parsed.diagnostics] };
  const kindProblem = checkKind(parsed.source, value);
  if (kindProblem !== undefined) return { diagnostics: [...parsed.diagnostics, kindProblem] };
  if (value["kind"] !== "workflow") {
    const message = `expected a workflow manifest (\`kind: workflow\`), got \`kind: ${String(value["kind"])}\``;
    return { diagnostics: [...parsed.diagnostics, createDiagnostic("MF1419", file, valuePosition(parsed.source, ["kind"]), message)] };
  }
  // A workflow manifest reads no agent feature: the format without them.
  const schemaProblems = checkSchema(parsed.source, value, []);
  if (schemaProblems.length > 0) return { diagnostics: [...parsed.diagnostics, ...schemaProblems] };
  // The meta-schema accepted it, which is exactly what RawWorkflow describes.
  const workflow = value as unknown as RawWorkflow;
  const result = checkWorkflow(workflow, context);
  const diagnostics = [
    ...parsed.diagnostics,
    ...checkManifest(parsed.source, workflow, []),
    // Duplicate steps come from the semantic check above, with the line of the first one.
    ...result.issues.filter((i) => i.code !== "MF1314").map((i) => issueDiagnostic(parsed.source, i)),
  ];
  const failed = diagnostics.some((d) => d.severity === "error");
  return failed || result.spec === undefined ? { diagnostics } : { diagnostics, spec: result.spec };
}

/**
 * Parse → `kind` → meta-schema → checks within the file → data-flow checks against `context`.
 * Never throws on bad input: every problem is a positioned diagnostic (`file` is used as given).
 */
export function loadWorkflowText(file: string, text: string, context: CheckContext): WorkflowTextResult {
  let result: WorkflowTextResult;
  try {
    result = check(file, text, context);
  } catch (error) {
    // A stack overflow on absurd nesting is a limit of this process, reported like the parser's own.
    if (!(error instanceof RangeError)) throw error;
    return { diagnostics: [createDiagnostic("MF1009", file, START, "the manifest nests too deeply to be checked")] };
  }
  const diagnostics = sortDiagnostics(result.diagnostics);
  return result.spec === undefined ? { diagnostics } : { diagnostics, spec: result.spec };
}
