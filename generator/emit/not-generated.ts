/**
 * The format accepts every part of an agent; this version of gen does not turn all of them into
 * code yet. Accepting a key and then doing nothing with it is the silent ignoring the format forbids,
 * so gen and validate warn (MF1315) at each such key: the manifest stays valid, and its author knows
 * exactly what is not served yet.
 */
import { createDiagnostic, sortDiagnostics } from "../diagnostics/create.js";
import type { Diagnostic, Project } from "../project.js";
import { MANIFOLD_VERSION } from "../version.js";

/** Agent keys whose endpoints gen does not emit yet, with what they would serve. */
const AGENT_KEYS: Readonly<Record<string, string>> = {
  scheduled: "POST /api/v1/scheduled",
  chat: "the /chat and /query endpoints",
  hitl: "human-approval checkpoints",
};

type At = { line: number; column: number };

/** Line and column of a top-level key in block style; the file's start otherwise. */
function keyAt(text: string | undefined, key: string): At {
  const index = text?.split(/\r?\n/).findIndex((line) => new RegExp(`^${key}\\s*:`).test(line)) ?? -1;
  return index >= 0 ? { line: index + 1, column: 1 } : { line: 1, column: 1 };
}

/** `natural:` inside the top-level `orchestration` mapping (block or flow style); the parent key otherwise. */
function naturalAt(text: string | undefined): At {
  const parent = keyAt(text, "orchestration");
  const lines = text?.split(/\r?\n/) ?? [];
  for (let i = parent.line - 1; i < lines.length; i++) {
    if (i > parent.line - 1 && /^\S/.test(lines[i]!)) break; // the next top-level key
    const column = lines[i]!.search(/\bnatural\s*:/);
    if (column >= 0) return { line: i + 1, column: column + 1 };
  }
  return parent;
}

export function notGenerated(project: Project): Diagnostic[] {
  const version = `manifold v${MANIFOLD_VERSION}`;
  const found: Diagnostic[] = [];
  for (const manifest of project.manifests) {
    if (manifest.kind !== "agent") continue;
    const text = project.sources?.get(manifest.file);
    const orchestration = manifest.document["orchestration"];
    if (typeof orchestration === "object" && orchestration !== null && "natural" in orchestration) {
      found.push(createDiagnostic("MF1315", manifest.file, naturalAt(text), `\`orchestration.natural\` is valid, but ${version} does not generate POST /orchestrate/natural yet`));
    }
    for (const [key, what] of Object.entries(AGENT_KEYS)) {
      if (manifest.document[key] === undefined) continue;
      found.push(createDiagnostic("MF1315", manifest.file, keyAt(text, key), `\`${key}\` is valid, but ${version} does not generate ${what} yet`));
    }
  }
  return sortDiagnostics(found);
}
