/**
 * Shared by the mcp-*.test.ts suites: a project in a temp folder holding `kind: mcp` manifests, the
 * real `manifold gen` run in-process over it, and the SDK-built notes server
 * (test/mcp/external/notes-server.ts) as the external server, over stdio or HTTP.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "../../generator/commands.js";
import { buildMcpLock, formatMcpLock } from "../../runtime/mcp/lock.js";
import type { McpLockTool } from "../../runtime/spec/index.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { tempProject } from "./load-helpers.js";

export const NOTES_SERVER = new URL("../mcp/external/notes-server.ts", import.meta.url).pathname;

/** `command` and `args` lines of a stdio manifest that runs the notes server (with `extra` arguments). */
export function notesStdio(extra: readonly string[] = []): string {
  const args = [...TS_NODE_ARGS, NOTES_SERVER, ...extra].map((a) => JSON.stringify(a)).join(", ");
  return `command: ${JSON.stringify(process.execPath)}\nargs: [${args}]\n`;
}

/** A `kind: mcp` manifest named `name` with the given address lines. */
export const mcpManifest = (address: string, name = "notes") => `kind: mcp\nname: ${name}\ndescription: Notes kept by an external server\n${address}`;

/** A lock file's text for `tools`, as gen writes it. */
export function lockText(tools: readonly McpLockTool[], server = { name: "s", version: "1.0.0" }): string {
  return formatMcpLock(buildMcpLock(server, tools));
}

export interface GenRun {
  readonly code: number;
  readonly diagnostics: { readonly code: string; readonly file: string; readonly line: number; readonly column: number; readonly message: string }[];
  readonly out: string;
  readonly err: string;
}

export interface McpProject {
  readonly root: string;
  gen(options?: { readonly check?: boolean; readonly refreshMcp?: boolean; readonly refreshA2a?: boolean }): Promise<GenRun>;
  /** A file under the project root. */
  read(path: string): Promise<string>;
  write(path: string, text: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** `files`: paths under manifests/ → content; a package.json makes the folder the project root. */
export async function mcpProject(files: Readonly<Record<string, string>>): Promise<McpProject> {
  const entries = Object.entries(files).map(([path, content]) => [`manifests/${path}`, content]);
  const { root, cleanup } = await tempProject({ "package.json": '{ "name": "mcp-project" }\n', ...Object.fromEntries(entries) });
  return {
    root,
    async gen({ check = false, refreshMcp = false, refreshA2a = false } = {}) {
      let out = "";
      let err = "";
      const io = { out: (text: string) => void (out += text), err: (text: string) => void (err += text), color: false };
      const options = { manifestsDir: join(root, "manifests"), outDir: join(root, "generated"), check, refreshMcp, refreshA2a, format: "json" as const };
      const code = await runCommand("gen", options, io);
      const json = out.slice(0, out.lastIndexOf("]") + 1);
      const diagnostics = json.trim().startsWith("[") ? (JSON.parse(json) as GenRun["diagnostics"]) : [];
      return { code, diagnostics, out, err };
    },
    read: (path) => readFile(join(root, path), "utf8"),
    write: (path, text) => writeFile(join(root, path), text),
    cleanup,
  };
}
