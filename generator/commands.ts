import {
  formatDiagnostics,
  summariseDiagnostics,
  sortDiagnostics,
  notGenerated,
  hasErrors,
  isBuiltinFile,
  SYNTAX_ERROR,
  type Project,
} from "../runtime/manifest/index.js";
import { stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import type { CliIo, Format } from "./cli-io.js";
import { emitProject } from "./emit/index.js";
import { loadProject } from "./load-project.js";
import { AGENT_FEATURES } from "../runtime/agent/features.js";
import { findProjectRoot } from "./project-root.js";
import { compareFolder, refuseToOwn, syncFolder } from "./output-folder.js";
import { ParseCache } from "./parse-cache.js";

export interface CommandOptions {
  readonly manifestsDir: string;
  readonly outDir: string;
  readonly check: boolean;
  /** Fail (exit 2) unless a deployment manifest makes gen write deploy/. */
  readonly deploy?: boolean;
  readonly format: Format;
  /** gen: fetch every `kind: mcp` server's tools again (with `check`: compare them with the lock files). */
  readonly refreshMcp?: boolean;
  /** gen: fetch every `kind: a2a` agent's card again (with `check`: compare it with the lock files). */
  readonly refreshA2a?: boolean;
}

function elapsed(start: bigint): string {
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `7 manifests`, plus the shipped ones the project pulled in by `uses` (`7 manifests + shipped scheduler`). */
function describeManifests(manifests: readonly { readonly file: string; readonly name: string }[]): string {
  const shipped = manifests.filter((m) => isBuiltinFile(m.file)).map((m) => m.name);
  const own = plural(manifests.length - shipped.length, "manifest");
  return shipped.length === 0 ? own : `${own} + shipped ${shipped.join(", ")}`;
}

/**
 * gen's load: fetch the lock files `kind: mcp` and `kind: a2a` manifests lack (or all of a kind's with
 * --refresh-mcp / --refresh-a2a), then load again if one was written. A remote that cannot be reached
 * is its MF1605 / MF1705, which replaces the missing lock's MF1602 / MF1702 of the same manifest.
 */
async function loadWithRemoteLocks(
  manifestsDir: string,
  root: string,
  options: CommandOptions,
  summary: (text: string) => void,
  parsed: ParseCache,
): Promise<Project> {
  const first = await loadProject({ manifestsDir, cwd: root, parsed });
  if (first.mcpServers === undefined && first.a2aAgents === undefined) return first;
  const check = options.check;
  const synced = [
    ...(first.mcpServers === undefined
      ? []
      : [await (await import("./mcp-locks.js")).syncMcpLocks(first, { root, check, refresh: options.refreshMcp === true })]),
    ...(first.a2aAgents === undefined
      ? []
      : [await (await import("./a2a-locks.js")).syncA2aLocks(first, { root, check, refresh: options.refreshA2a === true })]),
  ];
  const written = synced.flatMap((s) => s.written);
  const diagnostics = synced.flatMap((s) => s.diagnostics);
  for (const file of written) summary(`  locked   ${file}\n`);
  const project = written.length > 0 ? await loadProject({ manifestsDir, cwd: root, parsed }) : first;
  const unreachable = new Set(diagnostics.map((d) => d.file));
  const kept = project.diagnostics.filter((d) => !((d.code === "MF1602" || d.code === "MF1702") && unreachable.has(d.file)));
  return { ...project, diagnostics: sortDiagnostics([...kept, ...diagnostics]) };
}

export async function runCommand(command: "gen" | "validate", options: CommandOptions, io: CliIo): Promise<number> {
  const start = process.hrtime.bigint();
  // A folder that is not there is a mistake in the command, not in a manifest: no position to show.
  const folder = await stat(options.manifestsDir).catch(() => undefined);
  if (folder === undefined || !folder.isDirectory()) {
    io.err(`manifold: manifests folder ${options.manifestsDir} ${folder === undefined ? "does not exist" : "is not a folder"}; pass --manifests DIR\n`);
    return 2;
  }
  // With --format json, stdout is the JSON document alone: summaries go to stderr.
  const summary = options.format === "json" ? io.err : io.out;
  // Everything gen prints or writes names files relative to the project, never to the current folder.
  const root = findProjectRoot(options.manifestsDir);
  const manifestsDir = relative(root, resolve(options.manifestsDir)).split(sep).join("/") || ".";
  // gen (and --check) parse only the texts its parse cache in the output folder does not know.
  const parsed = command === "gen" ? await ParseCache.read(options.outDir) : undefined;
  const loaded =
    parsed !== undefined ? await loadWithRemoteLocks(manifestsDir, root, options, summary, parsed) : await loadProject({ manifestsDir, cwd: root });
  const project = hasErrors(loaded) ? loaded : { ...loaded, diagnostics: sortDiagnostics([...loaded.diagnostics, ...notGenerated(loaded, AGENT_FEATURES)]) };
  if (project.diagnostics.length > 0) {
    const text = formatDiagnostics(project.diagnostics, options.format, { color: io.color, ...(project.sources ? { sources: project.sources } : {}) });
    // Machine formats go to stdout whole; pretty diagnostics are human messages.
    if (options.format === "pretty") io.err(`${text}\n`);
    else io.out(`${text}\n`);
  } else if (options.format === "json") {
    io.out("[]\n");
  }
  if (hasErrors(project)) {
    if (options.format === "pretty") {
      if (project.diagnostics.some((d) => d.code === SYNTAX_ERROR)) io.err("manifold: checks across files were skipped until every file parses\n");
      io.err(`manifold: ${summariseDiagnostics(project.diagnostics)}; nothing written\n`);
    }
    return 1;
  }
  const manifests = describeManifests(project.manifests);
  if (command === "validate") {
    if (options.format === "pretty") io.out(`manifold: ${manifests} valid in ${elapsed(start)}\n`);
    return 0;
  }
  // Deploy output follows the deployment manifest, not the flag, so `gen` and `gen --check` always agree.
  if (options.deploy === true && !project.manifests.some((m) => m.kind === "deployment")) {
    io.err(`manifold: --deploy needs a \`kind: deployment\` manifest in ${options.manifestsDir} (see docs/deploy.md); nothing written\n`);
    return 2;
  }
  const files = emitProject(project, { manifestsDir });
  const out = options.outDir;
  if (options.check) {
    const drift = await compareFolder(out, files);
    const problems = [
      ...drift.stale.map((p) => `  stale    ${join(out, p)}`),
      ...drift.missing.map((p) => `  missing  ${join(out, p)}`),
      ...drift.extra.map((p) => `  extra    ${join(out, p)}`),
      ...drift.linked.map((p) => `  link     ${join(out, p)} (a symbolic link on its path: gen writes regular files only)`),
    ];
    if (problems.length > 0) {
      io.err(
        `manifold gen --check: ${relative(".", out) || "."} is out of date with ${options.manifestsDir}:\n${problems.join("\n")}\nRun \`npm run gen\` (manifold gen) and commit the result.\n`,
      );
      return 1;
    }
    summary(`manifold: ${plural(files.size, "file")} up to date (${manifests}) in ${elapsed(start)}\n`);
    return 0;
  }
  const refusal = await refuseToOwn(out);
  if (refusal !== undefined) {
    io.err(`manifold: ${refusal}\n`);
    return 2;
  }
  const result = await syncFolder(out, files);
  await parsed?.write(out);
  const removed = result.removed > 0 ? `, ${result.removed} removed` : "";
  for (const file of result.removedFiles) summary(`  removed  ${join(out, file)}\n`);
  summary(`manifold: ${result.written} written, ${result.unchanged} unchanged${removed} (${manifests}) in ${elapsed(start)}\n`);
  return 0;
}
