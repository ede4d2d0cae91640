/**
 * The format accepts every part of an agent, and workflows; this version of gen does not turn all of
 * them into code yet. Accepting a key and then doing nothing with it is the silent ignoring the
 * format forbids, so gen and validate warn (MF1315) at each such key: the manifest stays valid, and
 * its author knows exactly what is not served yet.
 */
import { createDiagnostic, sortDiagnostics } from "../diagnostics/create.js";
import type { Diagnostic, Project } from "../project.js";
import { MANIFOLD_VERSION } from "../version.js";

/** Agent keys whose endpoints gen does not emit yet, with what they would serve. */
const AGENT_KEYS: Readonly<Record<string, string>> = {
  orchestration: "the /orchestrate endpoints",
  tasks: "the /api/v1/tasks endpoints",
  scheduled: "POST /api/v1/scheduled",
  chat: "the /chat and /query endpoints",
  hitl: "human-approval checkpoints",
};

/** Line and column of a top-level key in block style; the file's start otherwise. */
function keyAt(text: string | undefined, key: string): { line: number; column: number } {
  const index = text?.split(/\r?\n/).findIndex((line) => new RegExp(`^${key}\\s*:`).test(line)) ?? -1;
  return index >= 0 ? { line: index + 1, column: 1 } : { line: 1, column: 1 };
}

export function notGenerated(project: Project): Diagnostic[] {
  const version = `manifold v${MANIFOLD_VERSION}`;
  const found: Diagnostic[] = [];
  for (const manifest of project.manifests) {
    const text = project.sources?.get(manifest.file);
    if (manifest.kind === "workflow") {
      found.push(createDiagnostic("MF1315", manifest.file, keyAt(text, "kind"), `workflow \`${manifest.name}\` is valid, but ${version} does not compile workflows yet`));
    } else if (manifest.kind === "agent") {
      for (const [key, what] of Object.entries(AGENT_KEYS)) {
        if (manifest.document[key] === undefined) continue;
        found.push(createDiagnostic("MF1315", manifest.file, keyAt(text, key), `\`${key}\` is valid, but ${version} does not generate ${what} yet`));
      }
    }
  }
  return sortDiagnostics(found);
}
