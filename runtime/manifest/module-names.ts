/**
 * The top-level names a component's generated module declares, derived from the manifest: the handle
 * and its companions from the component name, `<Capability>Input`/`Output`, `<Type>TaskInput`/`Result`,
 * `<Workflow>WorkflowInput`/`Output`. Two places that derive the same name would make the interfaces
 * merge silently (a capability `packing_task` and a task type `packing` are both `PackingTaskInput`),
 * and a name the module imports would not compile (a component `client` is `Client`). Both are MF1321.
 */
import type { DiagnosticCode } from "./codes.js";
import { featureWorkflows, type ManifestFeature, type ModuleName, type RawAgent } from "./feature.js";
import type { RawComponent } from "./manifest-types.js";
import type { Path } from "./source-file.js";
// The emitter's own naming functions, so this check and the generated module cannot disagree.
import { schemaName, toPascalCase, workflowTypeStem } from "../spec/index.js";

/** What a generated module imports from the runtime; its own declarations may not take these names. */
export const MODULE_IMPORTS: readonly string[] = ["Client", "ComponentSpec", "Handlers", "ScheduledHandler", "UsesClients", "defineAgent", "defineComponent"];

function derivedNames(component: RawComponent, features: readonly ManifestFeature[]): ModuleName[] {
  const handle = toPascalCase(component.name);
  const own = `component \`${component.name}\``;
  const suffixes = ["", "Capabilities", "Handlers", "Client", "Spec", ...(component.kind === "agent" ? ["Uses", "Clients", "Workflows", "Tasks"] : [])];
  const names: ModuleName[] = suffixes.map((suffix) => ({ name: `${handle}${suffix}`, path: ["name"], from: own, kind: "component" as const }));
  (component.capabilities ?? []).forEach((capability, i) => {
    for (const side of ["input", "output"] as const)
      names.push({
        name: schemaName(capability, side),
        path: ["capabilities", i, "name"],
        from: `capability \`${capability.name}\``,
        kind: "capability",
      });
  });
  if (component.kind !== "agent") return names;
  const agent = component as RawAgent;
  for (const feature of features) names.push(...(feature.moduleNames?.(agent) ?? []));
  // Every workflow a feature names (served, or run by a task) gets its input and output types, once.
  const workflows = new Map<string, Path>();
  for (const { name, path } of featureWorkflows(agent, features)) if (!workflows.has(name)) workflows.set(name, path);
  for (const [name, path] of workflows) {
    for (const side of ["WorkflowInput", "WorkflowOutput"])
      names.push({ name: `${workflowTypeStem({ name })}${side}`, path, from: `workflow \`${name}\``, kind: "workflow" });
  }
  return names;
}

/** operationIds of framework operations a snake_case capability name could take (the others are camelCase). */
const FRAMEWORK_OPERATIONS: Readonly<Record<string, string>> = { health: "GET /health" };

export function checkModuleNames(
  component: RawComponent,
  features: readonly ManifestFeature[],
  report: (code: DiagnosticCode, path: Path, message: string) => void,
  lineOf: (path: Path) => number,
): void {
  // A capability's operationId is its name: the OpenAPI document needs it unique.
  const agent = component.kind === "agent" ? (component as RawAgent) : undefined;
  const operations = { ...FRAMEWORK_OPERATIONS, ...Object.assign({}, ...features.map((feature) => (agent && feature.operations?.(agent)) ?? {})) };
  (component.capabilities ?? []).forEach((capability, i) => {
    const taken = Object.hasOwn(operations, capability.name) ? operations[capability.name] : undefined;
    if (taken !== undefined) {
      report(
        "MF1321",
        ["capabilities", i, "name"],
        `capability \`${capability.name}\` would share its OpenAPI operationId with the framework's ${taken}; rename it`,
      );
    }
  });
  const seen = new Map<string, ModuleName>();
  // One report per pair of places (a capability and a workflow clash on Input and Output alike).
  const reported = new Set<string>();
  for (const derived of derivedNames(component, features)) {
    if (MODULE_IMPORTS.includes(derived.name)) {
      if (!reported.has(derived.from))
        report("MF1321", derived.path, `${derived.from} becomes \`${derived.name}\`, a name the generated module imports from the runtime; rename it`);
      reported.add(derived.from);
      continue;
    }
    const first = seen.get(derived.name);
    if (first === undefined) seen.set(derived.name, derived);
    // Two capabilities (or two task types) that derive one name are MF1303/MF1304 (MF1313/MF1316) already.
    else if (first.kind !== derived.kind && !reported.has(`${first.from}|${derived.from}`)) {
      reported.add(`${first.from}|${derived.from}`);
      report(
        "MF1321",
        derived.path,
        `${first.from} (line ${lineOf(first.path)}) and ${derived.from} both become \`${derived.name}\` in the generated module; rename one`,
      );
    }
  }
}
