/**
 * Checks within one manifest that a schema cannot express: uniqueness by name, derived-name clashes,
 * endpoint collisions, and whether examples and enum values fit their fields.
 */
import type { DiagnosticCode } from "./codes.js";
import { createDiagnostic } from "./diagnostics/create.js";
import type { Diagnostic } from "./project.js";
import { toCamelCase } from "../spec/index.js";
import { FRAMEWORK_ROUTES } from "../spec/index.js";
import { exampleProblem, fitsType } from "./examples.js";
import type { FeatureCheckContext, ManifestFeature, ManifestFiles, RawAgent } from "./feature.js";
import type { RawComponent, RawFields, RawManifest, RawValue, RawWorkflow } from "./manifest-types.js";
import { defaultEndpoint, normaliseValue } from "./normalise.js";
import { displayPath, valuePosition, type Path, type SourceFile } from "./source-file.js";
import { quote } from "./values.js";
import { checkModuleNames } from "./module-names.js";

type Report = (code: DiagnosticCode, path: Path, message: string) => void;

/** Every path prefix some agent feature of the list owns: a capability endpoint of an agent may not take one. */
export function featureRoutePrefixes(features: readonly Pick<ManifestFeature, "routePrefixes">[]): string[] {
  return [...new Set(features.flatMap((feature) => feature.routePrefixes))].sort();
}

export interface CheckOptions {
  /** The files beside the manifest, for features that read files it names (skill folders). */
  readonly files?: ManifestFiles;
  /** Receives the text of each other file a feature reports a problem in, for pretty output. */
  readonly sources?: Map<string, string>;
}

export function checkManifest(
  source: SourceFile,
  manifest: RawManifest,
  features: readonly ManifestFeature[],
  { files, sources }: CheckOptions = {},
): Diagnostic[] {
  const found: Diagnostic[] = [];
  const report: Report = (code, path, message) => found.push(createDiagnostic(code, source.file, valuePosition(source, path), message));
  const lineOf = (path: Path): number => valuePosition(source, path).line;
  if (manifest.kind === "workflow") checkWorkflow(manifest, report, lineOf);
  // `kind: mcp` and `kind: a2a` are checked by load-mcp.ts and load-a2a.ts, with their lock files.
  else if (manifest.kind !== "deployment" && manifest.kind !== "mcp" && manifest.kind !== "a2a") {
    checkComponent(manifest, features, report, lineOf);
    if (manifest.kind === "agent") {
      const reportAt: FeatureCheckContext["reportAt"] = (code, at, message) => {
        if (at.text !== undefined) sources?.set(at.file, at.text);
        found.push(createDiagnostic(code, at.file, at.position, message));
      };
      const context: FeatureCheckContext = {
        report,
        reportAt,
        lineOf,
        file: source.file,
        files,
        checkFields: (fields: RawFields | undefined, path: Path) => checkFields(fields, path, report, lineOf),
      };
      for (const feature of features) feature.check?.(manifest as RawAgent, context);
    }
  }
  return found;
}

type LineOf = (path: Path) => number;

/** The framework route `endpoint` would shadow, or undefined; on agents, `agentPrefixes` (the feature list's). */
export function reservedRoute(endpoint: string, kind: RawComponent["kind"], agentPrefixes: readonly string[]): string | undefined {
  if (FRAMEWORK_ROUTES.includes(endpoint)) return endpoint;
  if (/^\/api\/capabilities\/[^/]+\/schema(\/|$)/.test(endpoint)) return "/api/capabilities/{name}/schema";
  if (kind === "agent") return agentPrefixes.find((prefix) => endpoint === prefix || endpoint.startsWith(`${prefix}/`));
  return undefined;
}

function checkComponent(component: RawComponent, features: readonly ManifestFeature[], report: Report, lineOf: LineOf): void {
  const agentPrefixes = featureRoutePrefixes(features);
  const byName = new Map<string, Path>();
  const byKey = new Map<string, { readonly name: string; readonly path: Path }>();
  const byEndpoint = new Map<string, Path>();
  (component.capabilities ?? []).forEach((capability, i) => {
    const path: Path = ["capabilities", i];
    const namePath: Path = [...path, "name"];
    const first = byName.get(capability.name);
    if (first !== undefined) {
      report("MF1303", namePath, `capability \`${capability.name}\` is declared twice (first on line ${lineOf(first)})`);
    } else {
      byName.set(capability.name, namePath);
      const key = toCamelCase(capability.name);
      const clash = byKey.get(key);
      if (clash !== undefined) {
        report(
          "MF1304",
          namePath,
          `capabilities \`${clash.name}\` (line ${lineOf(clash.path)}) and \`${capability.name}\` both become \`${key}\` in TypeScript; rename one`,
        );
      } else {
        byKey.set(key, { name: capability.name, path: namePath });
      }
      const endpoint = capability.endpoint ?? defaultEndpoint(capability.name);
      // Without an explicit endpoint the name is what chose it, so the name is what to point at.
      const endpointPath: Path = capability.endpoint !== undefined ? [...path, "endpoint"] : namePath;
      const reserved = reservedRoute(endpoint, component.kind, agentPrefixes);
      const taken = byEndpoint.get(endpoint);
      if (reserved !== undefined) {
        report("MF1306", endpointPath, `endpoint ${endpoint} of \`${capability.name}\` collides with the framework route ${reserved}`);
      } else if (taken !== undefined) {
        report("MF1305", endpointPath, `endpoint ${endpoint} of \`${capability.name}\` is already served by the capability on line ${lineOf(taken)}`);
      } else {
        byEndpoint.set(endpoint, endpointPath);
      }
    }
    checkFields(capability.input, [...path, "input"], report, lineOf);
    checkFields(capability.output, [...path, "output"], report, lineOf);
  });

  checkModuleNames(component, features, report, lineOf);
}

function checkWorkflow(workflow: RawWorkflow, report: Report, lineOf: LineOf): void {
  const byName = new Map<string, Path>();
  workflow.steps.forEach((step, i) => {
    const path: Path = ["steps", i, "name"];
    const first = byName.get(step.name);
    if (first !== undefined) report("MF1314", path, `step \`${step.name}\` is declared twice (first on line ${lineOf(first)})`);
    else byName.set(step.name, path);
  });
  // Inputs take a field's shape, so they get a field's checks (enum values, example, nested names, depth).
  for (const [name, input] of Object.entries(workflow.inputs)) checkValue(input, ["inputs", name], `input \`${name}\``, report, lineOf, 1);
}

/**
 * Deepest nesting of `fields` and `items` below a capability's or task's input or output. TypeScript
 * gives up comparing types nested about 40 deep (TS2321) and never finishes near 100; 16 is far
 * beyond any real payload and far below that.
 */
export const MAX_FIELD_DEPTH = 16;

function checkFields(fields: RawFields | undefined, path: Path, report: Report, lineOf: LineOf, depth = 1): void {
  if (fields === undefined) return;
  const byName = new Map<string, Path>();
  for (const side of ["required", "optional"] as const) {
    (fields[side] ?? []).forEach((field, i) => {
      const fieldPath: Path = [...path, side, i];
      const first = byName.get(field.name);
      if (first !== undefined)
        report("MF1307", [...fieldPath, "name"], `field \`${field.name}\` is declared twice in \`${displayPath(path)}\` (first on line ${lineOf(first)})`);
      else byName.set(field.name, [...fieldPath, "name"]);
      checkValue(field, fieldPath, `\`${field.name}\``, report, lineOf, depth);
    });
  }
}

function checkValue(value: RawValue, path: Path, label: string, report: Report, lineOf: LineOf, depth: number): void {
  if (depth > MAX_FIELD_DEPTH) {
    report(
      "MF1320",
      path,
      `${label} is nested ${depth} levels deep; fields and items nest at most ${MAX_FIELD_DEPTH} levels (the generated types would not compile)`,
    );
    return;
  }
  (value.enum ?? []).forEach((option, i) => {
    if (!fitsType(option, value.type)) report("MF1309", [...path, "enum", i], `enum value ${quote(option)} of ${label} is not of its type ${value.type}`);
  });
  if (value.example !== undefined) {
    const problem = exampleProblem(normaliseValue(value), value.example);
    if (problem !== undefined) report("MF1308", [...path, "example"], `example ${quote(value.example)} of ${label} does not fit: ${problem}`);
  }
  if (value.items !== undefined) checkValue(value.items, [...path, "items"], `the items of ${label}`, report, lineOf, depth + 1);
  checkFields(value.fields, [...path, "fields"], report, lineOf, depth + 1);
}
