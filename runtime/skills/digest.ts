/**
 * A skill version's content digest: sha256 (hex) of a canonical JSON of its instructions and its
 * resources sorted by path. Gen embeds it in the spec and the registry compares it on publish (the
 * same version with another digest is a conflict), so both sides must compute it the same way: here.
 */
import { createHash } from "node:crypto";
import type { SkillResource } from "./store/types.js";

export function skillDigest(content: { readonly instructions: string; readonly resources: readonly SkillResource[] }): string {
  const resources = [...content.resources]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((r) => (r.text === undefined ? [r.path, r.bytes] : [r.path, r.bytes, r.text]));
  return createHash("sha256")
    .update(JSON.stringify([content.instructions, resources]))
    .digest("hex");
}
