/**
 * Checks across manifests: names must be unique and stay unique after derivation, and every name an
 * agent refers to must have a manifest.
 */
import type { DiagnosticCode } from "./codes.js";
import { createDiagnostic } from "./diagnostics/create.js";
import type { Diagnostic } from "./project.js";
import { toPascalCase } from "../spec/index.js";
import type { FeatureLinkContext, ManifestFeature, RawAgent } from "./feature.js";
import { usedName, type RawA2a, type RawComponent, type RawDeployment, type RawManifest, type RawMcp } from "./manifest-types.js";
import type { ComponentSpec } from "../spec/index.js";
import { keyPosition, valuePosition, type Path, type SourceFile } from "./source-file.js";
import { checkDeployment } from "./link-deployment.js";
import { closest } from "./dataflow/index.js";

/** A manifest that passed the meta-schema. */
export interface CheckedManifest {
  readonly source: SourceFile;
  /** For a `kind: mcp` or `kind: a2a` manifest: the tool its lock file describes, which the checks see like any tool. */
  readonly manifest: Exclude<RawManifest, RawMcp | RawA2a>;
  /** `kind: mcp` and `kind: a2a` only: the manifest as written and its component, built from the lock file. */
  readonly remote?: { readonly kind: "mcp" | "a2a"; readonly document: Record<string, unknown>; readonly component: ComponentSpec };
}

/**
 * Names declared by every manifest whose kind and name could be read, including ones that failed the
 * schema: a reference to a broken manifest is not also reported as a reference to a missing one.
 */
export interface DeclaredNames {
  readonly components: ReadonlySet<string>;
  readonly workflows: ReadonlySet<string>;
}

type Report = (entry: CheckedManifest, code: DiagnosticCode, path: Path, message: string) => void;

export function checkProject(entries: readonly CheckedManifest[], declared: DeclaredNames, features: readonly ManifestFeature[]): Diagnostic[] {
  const found: Diagnostic[] = [];
  const report: Report = (entry, code, path, message) => found.push(createDiagnostic(code, entry.source.file, valuePosition(entry.source, path), message));
  const where = (entry: CheckedManifest): string => `${entry.source.file}:${valuePosition(entry.source, ["name"]).line}`;

  const components = new Map<string, CheckedManifest & { readonly manifest: RawComponent }>();
  const workflows = new Map<string, CheckedManifest>();
  const byPascal = new Map<string, CheckedManifest>();
  const deployments: (CheckedManifest & { readonly manifest: RawDeployment })[] = [];
  // An external MCP server or remote A2A agent is used, never deployed: a deployment neither lists nor misses it.
  const external = new Set(entries.filter((e) => e.remote !== undefined).map((e) => e.manifest.name));
  for (const entry of entries) {
    const { manifest } = entry;
    if (manifest.kind === "deployment") {
      if (deployments.length > 0) report(entry, "MF1319", ["kind"], `a network has one deployment manifest; ${where(deployments[0]!)} is the first`);
      else deployments.push({ ...entry, manifest });
      continue;
    }
    const first = manifest.kind === "workflow" ? workflows.get(manifest.name) : components.get(manifest.name);
    if (first !== undefined) {
      const what = manifest.kind === "workflow" ? "workflow" : "component";
      report(entry, "MF1301", ["name"], `${what} name \`${manifest.name}\` is already used by ${where(first)}`);
      continue;
    }
    if (manifest.kind === "workflow") {
      workflows.set(manifest.name, entry);
      continue;
    }
    components.set(manifest.name, { ...entry, manifest });
    const pascal = toPascalCase(manifest.name);
    const clash = byPascal.get(pascal);
    if (clash !== undefined) {
      report(
        entry,
        "MF1302",
        ["name"],
        `component names \`${clash.manifest.name}\` (${where(clash)}) and \`${manifest.name}\` both become \`${pascal}\` in TypeScript; rename one`,
      );
    } else {
      byPascal.set(pascal, entry);
    }
  }

  for (const entry of components.values()) {
    if (entry.manifest.kind === "agent") checkAgentReferences(entry, entry.manifest as RawAgent, { components, workflows, declared, report, features });
  }
  for (const entry of deployments) {
    const runsWorkers = (manifest: RawComponent): boolean =>
      manifest.kind === "agent" && features.some((feature) => feature.runsWorkers?.(manifest as RawAgent) === true);
    const deployed = new Map(
      [...components]
        .filter(([name]) => !external.has(name))
        .map(([name, c]) => [name, { file: c.source.file, manifest: c.manifest, runsWorkers: runsWorkers(c.manifest) }]),
    );
    checkDeployment(entry.manifest, deployed, declared.components, (code, path, message, at) =>
      found.push(createDiagnostic(code, entry.source.file, at === "key" ? keyPosition(entry.source, path) : valuePosition(entry.source, path), message)),
    );
  }
  return found;
}

interface Context {
  readonly components: ReadonlyMap<string, CheckedManifest & { readonly manifest: RawComponent }>;
  readonly workflows: ReadonlyMap<string, CheckedManifest>;
  readonly declared: DeclaredNames;
  readonly report: Report;
  readonly features: readonly ManifestFeature[];
}

function didYouMean(name: string, names: Iterable<string>): string {
  const guess = closest(name, [...names]);
  return guess === undefined ? "" : ` (did you mean \`${guess}\`?)`;
}

/** A `uses` entry's `planner` list names capabilities its component offers (MF1322). */
function checkPlannerLists(entry: CheckedManifest, agent: RawAgent, components: Context["components"], report: Report): void {
  (agent.uses ?? []).forEach((use, i) => {
    if (typeof use === "string" || !Array.isArray(use.planner)) return;
    const component = components.get(use.name);
    if (component === undefined) return; // MF1310 already, or a declared component whose manifest did not load.
    const offered = (component.manifest.capabilities ?? []).map((c) => c.name);
    (use.planner as readonly string[]).forEach((capability, j) => {
      if (offered.includes(capability)) return;
      report(entry, "MF1322", ["uses", i, "planner", j], `\`${use.name}\` has no capability \`${capability}\`${didYouMean(capability, offered)}`);
    });
  });
}

function checkAgentReferences(entry: CheckedManifest, agent: RawAgent, { components, workflows, declared, report, features }: Context): void {
  const uses = (agent.uses ?? []).map(usedName);
  uses.forEach((name, i) => {
    if (uses.indexOf(name) < i) return report(entry, "MF1208", ["uses", i], `\`uses\` lists \`${name}\` twice`);
    if (components.has(name) || declared.components.has(name)) return;
    const message =
      workflows.has(name) || declared.workflows.has(name)
        ? `\`uses\` names \`${name}\`, which is a workflow; list it under \`orchestration.workflows\``
        : `\`uses\` names \`${name}\`, but no tool or agent manifest has that name${didYouMean(name, components.keys())}`;
    report(entry, "MF1310", ["uses", i], message);
  });
  checkPlannerLists(entry, agent, components, report);
  // What is offered is only decidable when every used component loaded; otherwise a broken manifest would cause noise.
  const used = uses.flatMap((name) => {
    const component = components.get(name);
    return component === undefined ? [] : [component.manifest];
  });
  const context: FeatureLinkContext = {
    report: (code, path, message) => report(entry, code, path, message),
    knowsWorkflow: (name) => workflows.has(name) || declared.workflows.has(name),
    didYouMean,
    workflowNames: [...workflows.keys()],
    offered: used.length < uses.length ? undefined : new Set([agent, ...used].flatMap((c) => (c.capabilities ?? []).map((cap) => cap.name))),
  };
  for (const feature of features) feature.link?.(agent, context);
}
