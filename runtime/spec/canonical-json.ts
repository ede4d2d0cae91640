/**
 * Canonical JSON (keys sorted at every level) and its content hash: what the lock files of remote
 * components (`<name>.mcp-lock.json`, `<name>.a2a-lock.json`) are written in and compared by, so the
 * same snapshot always gives the same bytes and the same hash whatever order the remote sent it in.
 */
import { createHash } from "node:crypto";

export function canonicalJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalJson);
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = canonicalJson((value as Record<string, unknown>)[key]);
  return sorted;
}

/** `sha256-<base64>` of the value's canonical JSON. */
export function contentHash(value: unknown): string {
  return `sha256-${createHash("sha256")
    .update(JSON.stringify(canonicalJson(value)))
    .digest("base64")}`;
}

/** A lock file's text: canonical, two-space indented, ending in a newline. */
export function formatLockFile(lock: unknown): string {
  return `${JSON.stringify(canonicalJson(lock), null, 2)}\n`;
}
