/**
 * Building and reading `<name>.mcp-lock.json`: canonical JSON (keys sorted at every level), so the
 * same tools always give the same bytes and the same hash whatever order the server sent them in.
 */
import { createHash } from "node:crypto";
import { MCP_LOCK_VERSION, type McpLock, type McpLockTool } from "../spec/index.js";

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = canonical((value as Record<string, unknown>)[key]);
  return sorted;
}

/** `sha256-<base64>` of the tools' canonical JSON. */
export function mcpToolsHash(tools: readonly McpLockTool[]): string {
  return `sha256-${createHash("sha256")
    .update(JSON.stringify(canonical(tools)))
    .digest("base64")}`;
}

export function buildMcpLock(server: McpLock["server"], tools: readonly McpLockTool[]): McpLock {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { lockfileVersion: MCP_LOCK_VERSION, server, tools: sorted, hash: mcpToolsHash(sorted) };
}

/** The lock file's text: canonical, two-space indented, ending in a newline. */
export function formatMcpLock(lock: McpLock): string {
  return `${JSON.stringify(canonical(lock), null, 2)}\n`;
}
