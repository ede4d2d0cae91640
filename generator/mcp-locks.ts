/**
 * The lock files of `kind: mcp` manifests (the shared step is remote-locks.ts). Plain `gen` fetches a
 * lock that is missing and never touches one that is there (offline from then on); `--refresh-mcp`
 * fetches every server again and rewrites its lock; `--check` writes nothing (a missing lock stays
 * the loader's MF1602), and `--check --refresh-mcp` compares the live tools with the lock (MF1606).
 * A stdio server runs in the project root; a token is read from its variable and never written.
 */
import { createDiagnostic, type McpManifestInfo, type Project } from "../runtime/manifest/index.js";
import { buildMcpLock, formatMcpLock } from "../runtime/mcp/lock.js";
import type { McpLock, McpLockTool } from "../runtime/spec/index.js";
import { describeChanges, syncRemoteLocks, type LockOptions, type LockResult } from "./remote-locks.js";

/** The project root is also where a stdio server runs. */
export type McpLockOptions = LockOptions;
export type McpLockResult = LockResult;

type Fetched = { readonly lock: McpLock } | { readonly error: string };

async function fetchLock(server: McpManifestInfo, root: string, env: Readonly<Record<string, string | undefined>>): Promise<Fetched> {
  // Loaded on use: gen without kind: mcp manifests never loads the SDK.
  const { connectMcpServer, listMcpTools } = await import("../runtime/mcp/connect.js");
  try {
    // A stdio server's stderr is its own business: gen's output stays gen's.
    const client = await connectMcpServer(server.address, {
      name: server.name,
      cwd: root,
      env,
      stderr: "ignore",
      ...(server.address.timeoutMs !== undefined && { timeoutMs: server.address.timeoutMs }),
    });
    try {
      const listed = await listMcpTools(client);
      return { lock: buildMcpLock(listed.server, listed.tools) };
    } finally {
      await client.close().catch(() => undefined);
    }
  } catch (error) {
    // connectMcpServer's messages name the server without credentials; a token is never in them.
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** `added: a; removed: b; changed: c` between the locked tools and the live ones. */
export function describeToolChanges(locked: readonly McpLockTool[], live: readonly McpLockTool[]): string {
  return describeChanges(locked, live, (t) => t.name, "the tools' order or server details changed");
}

/** Fetches, compares or writes the lock of every `kind: mcp` manifest of `project`, as the flags say. */
export function syncMcpLocks(project: Project, { root, check, refresh, env = process.env }: McpLockOptions): Promise<McpLockResult> {
  return syncRemoteLocks<McpManifestInfo, McpLock>(
    project.mcpServers ?? [],
    {
      fetch: (server) => fetchLock(server, root, env),
      format: formatMcpLock,
      unreachable: (server, error) => createDiagnostic("MF1605", server.file, server.at, `cannot list the tools of MCP server \`${server.name}\`: ${error}`),
      changed: (server, locked, live) => {
        const changes = describeToolChanges(Array.isArray(locked["tools"]) ? (locked["tools"] as McpLockTool[]) : [], live.tools);
        const message = `the tools of MCP server \`${server.name}\` differ from ${server.lockFile} (${changes}); run \`manifold gen --refresh-mcp\` and commit the lock file`;
        return createDiagnostic("MF1606", server.file, server.at, message);
      },
    },
    { root, check, refresh },
  );
}
