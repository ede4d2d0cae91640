/**
 * The pipeline over text already in memory: parse → kind → meta-schema → checks within a file →
 * checks across files → normalise. File-system concerns live in index.ts.
 */
import { createDiagnostic, sortDiagnostics, START } from "./diagnostics/create.js";
import type { A2aManifestInfo, Diagnostic, LoadedManifest, ManifestKind, McpManifestInfo, Project } from "./project.js";
import { checkKind, isManifestKind } from "./kind.js";
import type { RawA2a, RawManifest, RawMcp } from "./manifest-types.js";
import { loadMcpManifest, type McpLoadResult } from "./load-mcp.js";
import { loadA2aManifest } from "./load-a2a.js";
import type { SourceFile } from "./source-file.js";
import { normaliseComponent } from "./normalise.js";
import { parseManifest } from "./parse.js";
import { checkProject, type CheckedManifest, type DeclaredNames } from "./link.js";
import { checkSchema } from "./validate-schema.js";
import { checkManifest } from "./validate-semantic.js";
import { checkProjectWorkflows, type WorkflowCheckResult } from "./check.js";
import type { WorkflowSpec } from "../spec/index.js";
import { builtinSources } from "./builtins.js";
import { compareText } from "./values.js";
import type { ManifestFeature, ManifestFiles } from "./feature.js";

export interface ManifestSource {
  /** Relative to the cwd, `/` separators; used as is in diagnostics. */
  readonly file: string;
  readonly text: string;
}

interface FileResult {
  readonly diagnostics: readonly Diagnostic[];
  readonly checked?: CheckedManifest;
  /** Kind and name when they could be read, even if the file is otherwise broken. */
  readonly declared?: { readonly kind: ManifestKind; readonly name: string };
  /** A `kind: mcp` manifest with a valid address, for gen's lock step. */
  readonly mcp?: McpManifestInfo;
  /** A `kind: a2a` manifest with a valid card URL, for gen's lock step. */
  readonly a2a?: A2aManifestInfo;
}

/** What the checks of one file read besides its text: the files beside it, and where other files' texts go. */
interface FileContext {
  readonly files: ManifestFiles | undefined;
  readonly sources: Map<string, string>;
  readonly parsed: ParsedValues | undefined;
}

/**
 * What texts parsed to before (gen's parse cache, keyed by content): `get` answers the value a text parsed
 * to with no diagnostic at all, `set` is told each such value as it is made (before any check reads it).
 */
export interface ParsedValues {
  get(text: string): Record<string, unknown> | undefined;
  set(text: string, value: Record<string, unknown>): void;
}

function parseCached(file: string, text: string, cache: ParsedValues | undefined): ReturnType<typeof parseManifest> {
  const known = cache?.get(text);
  const parsed = parseManifest(file, text, known);
  if (cache !== undefined && known === undefined && parsed.value !== undefined && parsed.diagnostics.length === 0) cache.set(text, parsed.value);
  return parsed;
}

function loadFile({ file, text }: ManifestSource, features: readonly ManifestFeature[], { files, sources, parsed: cache }: FileContext): FileResult {
  const parsed = parseCached(file, text, cache);
  const value = parsed.value;
  if (value === undefined) return { diagnostics: parsed.diagnostics };
  const kindProblem = checkKind(parsed.source, value);
  if (kindProblem !== undefined) return { diagnostics: [...parsed.diagnostics, kindProblem] };
  const kind = value["kind"];
  const name = value["name"];
  const declared = isManifestKind(kind) && typeof name === "string" ? { kind, name } : undefined;
  const schemaProblems = checkSchema(parsed.source, value, features);
  if (schemaProblems.length > 0) return { diagnostics: [...parsed.diagnostics, ...schemaProblems], ...(declared && { declared }) };
  // The meta-schema accepted it, which is exactly what RawManifest describes.
  const manifest = value as unknown as RawManifest;
  if (manifest.kind === "mcp" || manifest.kind === "a2a") return loadRemote(parsed.source, manifest, files, declared, parsed.diagnostics);
  return {
    diagnostics: [...parsed.diagnostics, ...checkManifest(parsed.source, manifest, features, { ...(files && { files }), sources })],
    checked: { source: parsed.source, manifest },
    ...(declared && { declared }),
  };
}

/** A `kind: mcp` or `kind: a2a` manifest: its component comes from the lock file beside it. */
function loadRemote(
  source: SourceFile,
  manifest: RawMcp | RawA2a,
  files: ManifestFiles | undefined,
  declared: FileResult["declared"],
  own: readonly Diagnostic[],
): FileResult {
  let result: Pick<McpLoadResult, "diagnostics" | "view" | "component">;
  let info: Pick<FileResult, "mcp" | "a2a">;
  if (manifest.kind === "mcp") {
    const loaded = loadMcpManifest(source, manifest, files);
    [result, info] = [loaded, loaded.info ? { mcp: loaded.info } : {}];
  } else {
    const loaded = loadA2aManifest(source, manifest, files);
    [result, info] = [loaded, loaded.info ? { a2a: loaded.info } : {}];
  }
  const document = manifest as unknown as Record<string, unknown>;
  const checked: CheckedManifest | undefined =
    result.view === undefined || result.component === undefined
      ? undefined
      : { source, manifest: result.view, remote: { kind: manifest.kind, document, component: result.component } };
  return { diagnostics: [...own, ...result.diagnostics], ...(checked && { checked }), ...(declared && { declared }), ...info };
}

/** A stack overflow on absurd input is a limit of this process, reported like the parser's own. */
function loadFileSafely(source: ManifestSource, features: readonly ManifestFeature[], context: FileContext): FileResult {
  try {
    return loadFile(source, features, context);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return { diagnostics: [createDiagnostic("MF1009", source.file, START, "the manifest nests too deeply to be checked")] };
  }
}

function checkWorkflowsSafely(checked: readonly CheckedManifest[], declared: DeclaredNames, features: readonly ManifestFeature[]): WorkflowCheckResult {
  try {
    return checkProjectWorkflows(checked, declared, features);
  } catch (error) {
    // Values nested deeper than the stack (the parser allows more than the checker's recursion).
    if (!(error instanceof RangeError)) throw error;
    const file = checked.find((c) => c.manifest.kind === "workflow")?.source.file ?? "";
    return { diagnostics: [createDiagnostic("MF1009", file, START, "a workflow nests too deeply to be checked")], specs: new Map() };
  }
}

function toLoaded(
  { source, manifest, remote }: CheckedManifest,
  features: readonly ManifestFeature[],
  workflows: ReadonlyMap<string, WorkflowSpec> | undefined,
  files: ManifestFiles | undefined,
): LoadedManifest {
  if (remote !== undefined)
    return { file: source.file, kind: remote.kind, name: remote.component.name, component: remote.component, document: remote.document };
  const document = manifest as unknown as Record<string, unknown>;
  if (manifest.kind === "workflow" || manifest.kind === "deployment") return { file: source.file, kind: manifest.kind, name: manifest.name, document };
  const component = normaliseComponent(manifest, features, workflows, { file: source.file, files });
  return { file: source.file, kind: manifest.kind, name: manifest.name, component, document };
}

export interface AssembleOptions {
  /** Check references between manifests (`uses`, workflows, duplicate names). */
  readonly crossFile: boolean;
  /** The agent features whose manifest keys the format accepts (gen and the runtime pass the shipped list). */
  readonly features: readonly ManifestFeature[];
  /** Problems found before parsing (unreadable files, a missing folder). */
  readonly diagnostics?: readonly Diagnostic[];
  /**
   * The files beside the manifests, for features that embed files a manifest names (an agent's skill
   * folders). @defaultValue none: such entries are not read (manifests given as text alone)
   */
  readonly files?: ManifestFiles;
  /** Values texts parsed to before (gen's parse cache). @defaultValue none: every text is parsed */
  readonly parsed?: ParsedValues;
}

/** The YAML syntax error code: a file with one is skipped by the checks across files. */
export const SYNTAX_ERROR = "MF1006";

/** A file's text as the parser is given it (what a parse cache is keyed by). */
export function manifestText(text: string): string {
  // A BOM is not content; dropping it keeps columns on the first line as editors count them. A lone
  // CR (old Mac line endings) is a line break to YAML 1.2 and to editors, but not to the parser.
  return (text.startsWith("\uFEFF") ? text.slice(1) : text).replace(/\r(?!\n)/g, "\n");
}

export function assemble(sources: readonly ManifestSource[], { crossFile, features, diagnostics = [], files, parsed }: AssembleOptions): Project {
  const own = sources.map(({ file, text }) => ({ file, text: manifestText(text) }));
  // Texts of the other files diagnostics point into (a skill's SKILL.md), for pretty output.
  const context: FileContext = { files, sources: new Map(), parsed };
  const loaded = own.map((source) => ({ source, result: loadFileSafely(source, features, context) }));
  // The shipped manifests the project uses, found from what was just parsed (not parsed again).
  if (crossFile) for (const source of builtinSources(loaded.map((l) => l.result))) loaded.push({ source, result: loadFileSafely(source, features, context) });
  loaded.sort((a, b) => compareText(a.source.file, b.source.file));
  const ordered = loaded.map((l) => l.source);
  const results = loaded.map((l) => l.result);
  const all: Diagnostic[] = [...diagnostics, ...results.flatMap((r) => r.diagnostics)];
  const checked = results.flatMap((r) => (r.checked === undefined ? [] : [r.checked]));
  // Workflow specs exist only across files: a workflow is checked against the components it calls.
  let workflowSpecs: ReadonlyMap<string, WorkflowSpec> | undefined;
  // A file that is not YAML declares nothing we can see: checks across files would report every
  // reference to what it defines as unknown, listed as if they were the problem. Skip them until it parses.
  const unparsed = results.some((r) => r.diagnostics.some((d) => d.code === SYNTAX_ERROR));
  if (crossFile && !unparsed) {
    const components = new Set<string>();
    const workflows = new Set<string>();
    for (const { declared } of results) {
      if (declared?.kind === "workflow") workflows.add(declared.name);
      else if (declared !== undefined && declared.kind !== "deployment") components.add(declared.name);
    }
    all.push(...checkProject(checked, { components, workflows }, features));
    const dataFlow = checkWorkflowsSafely(checked, { components, workflows }, features);
    all.push(...dataFlow.diagnostics);
    workflowSpecs = dataFlow.specs;
  }
  const manifests = checked
    .map((entry) => toLoaded(entry, features, workflowSpecs, files))
    .sort((a, b) => compareText(a.kind, b.kind) || compareText(a.name, b.name) || compareText(a.file, b.file));
  const mcpServers = results.flatMap((r) => (r.mcp === undefined ? [] : [r.mcp]));
  const a2aAgents = results.flatMap((r) => (r.a2a === undefined ? [] : [r.a2a]));
  return {
    manifests,
    diagnostics: sortDiagnostics(all),
    sources: new Map([...ordered.map((s): [string, string] => [s.file, s.text]), ...context.sources]),
    ...(mcpServers.length > 0 && { mcpServers }),
    ...(a2aAgents.length > 0 && { a2aAgents }),
  };
}

/** Every check, over manifests held in memory (tests, editors). */
export function loadSources(sources: readonly ManifestSource[], features: readonly ManifestFeature[]): Project {
  return assemble(sources, { crossFile: true, features });
}

/**
 * One manifest on its own: everything but the checks that need other manifests (`uses`, workflow
 * names, duplicate names across files, workflow data flow). An agent's workflows cannot be resolved
 * this way, so its `agent.orchestration.workflows` and `endpoints` are empty and its workflow tasks
 * carry no input or output fields.
 */
export function loadManifestText(file: string, text: string, features: readonly ManifestFeature[], files?: ManifestFiles): Project {
  return assemble([{ file, text }], { crossFile: false, features, ...(files && { files }) });
}
