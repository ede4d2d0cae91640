/** The skills that shaped a run, read from its execution record (`context.skills`). */
import type { ExecutionRecord } from "../orchestration/served.js";
import type { SkillEvidence } from "../skills/index.js";

/** The skill evidence of a record that shaped it, whatever its shape: `context` is open to every source, so it is checked, not trusted. */
export function skillEvidence(record: ExecutionRecord): SkillEvidence[] {
  const listed = record.context?.["skills"];
  if (!Array.isArray(listed)) return [];
  const found: SkillEvidence[] = [];
  for (const item of listed.slice(0, 100) as unknown[]) {
    if (typeof item !== "object" || item === null) continue;
    const { namespace, name, version, digest, resources, left_out } = item as Record<string, unknown>;
    if (typeof namespace !== "string" || typeof name !== "string" || typeof version !== "string") continue;
    // Chosen but left out of the prompt (over the skills budget): it did not shape the run.
    if (left_out !== undefined) continue;
    found.push({
      namespace,
      name,
      version,
      digest: typeof digest === "string" ? digest : "",
      resources: Array.isArray(resources) ? resources.filter((r): r is string => typeof r === "string").slice(0, 50) : [],
    });
  }
  return found;
}

/** `namespace/name@version` of each skill that shaped the run, for a list. */
export function skillLabels(record: ExecutionRecord): string[] {
  return skillEvidence(record).map((e) => `${e.namespace}/${e.name}@${e.version}`);
}
