/**
 * Building and reading `<name>.mcp-lock.json`: canonical JSON (keys sorted at every level), so the
 * same tools always give the same bytes and the same hash whatever order the server sent them in.
 */
import { contentHash, formatLockFile, MCP_LOCK_VERSION, type McpLock, type McpLockTool } from "../spec/index.js";

/** `sha256-<base64>` of the tools' canonical JSON. */
export function mcpToolsHash(tools: readonly McpLockTool[]): string {
  return contentHash(tools);
}

export function buildMcpLock(server: McpLock["server"], tools: readonly McpLockTool[]): McpLock {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { lockfileVersion: MCP_LOCK_VERSION, server, tools: sorted, hash: mcpToolsHash(sorted) };
}

/** The lock file's text: canonical, two-space indented, ending in a newline. */
export function formatMcpLock(lock: McpLock): string {
  return formatLockFile(lock);
}
