/**
 * The data-flow checks of gen: every workflow manifest is checked by the runtime's checker
 * (dataflow/) against the loaded tool and agent manifests, and every agent's use of
 * a workflow against its `uses`. Issues carry document paths; here they become positioned diagnostics.
 */
import { RESERVED_WORKFLOW_NAMES, checkWorkflow, type CheckContext, type ComponentView, type WorkflowIssue } from "./dataflow/index.js";
import type { WorkflowSpec } from "../spec/index.js";
import { isDiagnosticCode, type DiagnosticCode } from "./codes.js";
import { createDiagnostic } from "./diagnostics/create.js";
import type { Diagnostic } from "./project.js";
import { usedName, type RawComponent, type RawWorkflow } from "./manifest-types.js";
import { normaliseCapabilities } from "./normalise.js";
import { featureWorkflows, type ManifestFeature, type RawAgent } from "./feature.js";
import type { CheckedManifest, DeclaredNames } from "./link.js";
import { keyPosition, offsetPosition, valuePosition, type SourceFile } from "./source-file.js";

/** One checker issue at its place in the file. */
export function issueDiagnostic(source: SourceFile, issue: WorkflowIssue): Diagnostic {
  // The checker only emits codes of the table; a stranger would be a bug, still reported, not lost.
  const code: DiagnosticCode = isDiagnosticCode(issue.code) ? issue.code : "MF1405";
  const position =
    issue.at === "key"
      ? keyPosition(source, issue.path)
      : issue.offset !== undefined
        ? offsetPosition(source, issue.path, issue.offset)
        : valuePosition(source, issue.path);
  return createDiagnostic(code, source.file, position, issue.message);
}

/** The checker's view of tool and agent manifests that passed their own checks. */
export function contextFromManifests(components: Iterable<RawComponent>, broken: ReadonlySet<string> = new Set()): CheckContext {
  const views = new Map<string, ComponentView>();
  for (const raw of components) {
    if (views.has(raw.name)) continue;
    views.set(raw.name, { kind: raw.kind, capabilities: normaliseCapabilities(raw) });
  }
  return {
    component: (name) => views.get(name),
    componentNames: () => [...views.keys()],
    isBroken: (name) => broken.has(name) && !views.has(name),
  };
}

export interface WorkflowCheckResult {
  readonly diagnostics: Diagnostic[];
  /** The checked spec of every workflow without errors, by name (the first manifest of a name). */
  readonly specs: ReadonlyMap<string, WorkflowSpec>;
}

type ComponentEntry = CheckedManifest & { readonly manifest: RawComponent };
type WorkflowEntry = CheckedManifest & { readonly manifest: RawWorkflow };

/**
 * Checks every workflow, then every agent's workflows against its `uses`. `declared` holds names of
 * manifests that failed the schema: steps calling them are not checked further (no cascades).
 */
export function checkProjectWorkflows(entries: readonly CheckedManifest[], declared: DeclaredNames, features: readonly ManifestFeature[]): WorkflowCheckResult {
  const components = entries.filter((e): e is ComponentEntry => e.manifest.kind === "tool" || e.manifest.kind === "agent");
  const workflows = entries.filter((e): e is WorkflowEntry => e.manifest.kind === "workflow");
  const context = contextFromManifests(
    components.map((e) => e.manifest),
    declared.components,
  );
  const diagnostics: Diagnostic[] = [];
  const specs = new Map<string, WorkflowSpec>();
  const byName = new Map<string, WorkflowEntry>();
  for (const entry of workflows) {
    const result = checkWorkflow(entry.manifest, context);
    // Duplicate steps are reported by the semantic check already, with the line of the first one.
    diagnostics.push(...result.issues.filter((i) => i.code !== "MF1314").map((i) => issueDiagnostic(entry.source, i)));
    if (byName.has(entry.manifest.name)) continue;
    byName.set(entry.manifest.name, entry);
    if (result.spec !== undefined) specs.set(entry.manifest.name, result.spec);
  }
  for (const entry of components) {
    if (entry.manifest.kind === "agent") diagnostics.push(...checkAgentWorkflows(entry, byName, context, features));
  }
  return { diagnostics, specs };
}

function checkAgentWorkflows(
  entry: ComponentEntry,
  workflows: ReadonlyMap<string, WorkflowEntry>,
  context: CheckContext,
  features: readonly ManifestFeature[],
): Diagnostic[] {
  const agent = entry.manifest;
  const found: Diagnostic[] = [];
  const allowed = new Set((agent.uses ?? []).map(usedName));
  // Where the agent names workflows: each feature's references (served ones, those its tasks run, …).
  for (const { name, path, served } of featureWorkflows(agent as RawAgent, features)) {
    if (served && RESERVED_WORKFLOW_NAMES.includes(name)) {
      found.push(
        createDiagnostic(
          "MF1417",
          entry.source.file,
          valuePosition(entry.source, path),
          `workflow \`${name}\` cannot be served: \`/orchestrate/${name}\` is the ${name} orchestration route; rename the workflow`,
        ),
      );
    }
    const workflow = workflows.get(name);
    if (workflow === undefined) continue;
    const { issues } = checkWorkflow(workflow.manifest, { ...context, allowed });
    for (const issue of issues) {
      if (issue.code !== "MF1415") continue;
      const step = workflow.manifest.steps[Number(issue.path[1])];
      const component = step?.tool ?? step?.agent ?? "";
      found.push(
        createDiagnostic(
          "MF1415",
          entry.source.file,
          valuePosition(entry.source, path),
          `workflow \`${name}\` step \`${step?.name ?? "?"}\` calls \`${component}\`, which \`${agent.name}\` does not list in \`uses\``,
        ),
      );
    }
  }
  return found;
}
