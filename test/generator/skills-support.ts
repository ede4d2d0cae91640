/**
 * Shared by the skills*.test.ts suites: a project in a temp folder with an agent listing skills, and
 * the real `manifold gen` run in-process over it (diagnostics as JSON, exit code, generated files).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "../../generator/commands.js";
import { tempProject } from "./load-helpers.js";

/** A SKILL.md: front matter lines, then the instructions. */
export const skillFile = (front: string, body = "Follow the steps.\n") => `---\n${front}\n---\n\n${body}`;

/** An agent manifest at manifests/agent.yaml listing `skills` (a YAML flow list or block). */
export const agentManifest = (skills: string) =>
  `kind: agent\nname: trip-agent\ndescription: Plans trips\ncapabilities:\n  - { name: plan, description: Plans a trip }\nskills: ${skills}\n`;

export interface GenRun {
  readonly code: number;
  /** The diagnostics as `[code, file, line, column]`. */
  readonly where: [string, string, number, number][];
  readonly diagnostics: { readonly code: string; readonly file: string; readonly line: number; readonly column: number; readonly message: string }[];
  readonly err: string;
}

export interface SkillProject {
  readonly root: string;
  /** `manifold gen` (or `gen --check`) over manifests/ into generated/. */
  gen(options?: { readonly check?: boolean }): Promise<GenRun>;
  /** A generated file's text. */
  generated(path: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** `files`: paths under manifests/ → content; a package.json makes the folder the project root. */
export async function skillProject(files: Readonly<Record<string, string | Uint8Array>>): Promise<SkillProject> {
  const entries = Object.entries(files).map(([path, content]): [string, string | Uint8Array] => [`manifests/${path}`, content]);
  const { root, cleanup } = await tempProject({ "package.json": '{ "name": "skills-project" }\n', ...Object.fromEntries(entries) });
  return {
    root,
    async gen({ check = false } = {}) {
      let out = "";
      let err = "";
      const io = { out: (text: string) => void (out += text), err: (text: string) => void (err += text), color: false };
      const code = await runCommand("gen", { manifestsDir: join(root, "manifests"), outDir: join(root, "generated"), check, format: "json" }, io);
      const diagnostics = out.trim().startsWith("[") ? (JSON.parse(out) as GenRun["diagnostics"]) : [];
      return { code, diagnostics, where: diagnostics.map((d) => [d.code, d.file, d.line, d.column]), err };
    },
    generated: (path) => readFile(join(root, "generated", path), "utf8"),
    cleanup,
  };
}
