/**
 * The snapshot of an external MCP server's `tools/list` that `manifold gen` keeps beside a `kind: mcp`
 * manifest (`<name>.mcp-lock.json`, committed). gen works offline from it; `gen --refresh-mcp` rewrites
 * it and `gen --check --refresh-mcp` compares it with the live server by `hash`.
 */
export const MCP_LOCK_VERSION = 1;

/** One tool as `tools/list` gave it, reduced to what gen and the runtime read. */
export interface McpLockTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** The server's hints (`readOnlyHint`, `destructiveHint`, …), kept for the reader. */
  readonly annotations?: Readonly<Record<string, unknown>>;
}

export interface McpLock {
  readonly lockfileVersion: typeof MCP_LOCK_VERSION;
  /** `serverInfo` of the server's `initialize` answer. */
  readonly server: { readonly name: string; readonly version: string };
  /** Sorted by name. */
  readonly tools: readonly McpLockTool[];
  /** `sha256-<base64>` of the canonical JSON of `tools`: what `--check --refresh-mcp` compares. */
  readonly hash: string;
}

/** `<manifest name>.mcp-lock.json`. */
export function mcpLockFileName(manifestName: string): string {
  return `${manifestName}.mcp-lock.json`;
}
