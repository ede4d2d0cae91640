/**
 * gen's one contact with the outside: the lock files of `kind: mcp` manifests. Plain `gen` fetches a
 * lock that is missing and never touches one that is there (offline from then on); `--refresh-mcp`
 * fetches every server again and rewrites its lock; `--check` writes nothing (a missing lock stays
 * the loader's MF1602), and `--check --refresh-mcp` compares the live tools with the lock (MF1606).
 * A stdio server runs in the project root; a token is read from its variable and never written.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createDiagnostic, type Diagnostic, type McpManifestInfo, type Project } from "../runtime/manifest/index.js";
import { buildMcpLock, formatMcpLock, mcpToolsHash } from "../runtime/mcp/lock.js";
import type { McpLock, McpLockTool } from "../runtime/spec/index.js";

export interface McpLockOptions {
  /** The project root: where a stdio server runs and what every path is relative to. */
  readonly root: string;
  readonly check: boolean;
  readonly refresh: boolean;
  /** Where token and `env` variables are read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface McpLockResult {
  readonly diagnostics: readonly Diagnostic[];
  /** Lock files written (paths relative to the root). */
  readonly written: readonly string[];
}

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
  const before = new Map(locked.map((t) => [t.name, JSON.stringify(t)]));
  const after = new Map(live.map((t) => [t.name, JSON.stringify(t)]));
  const added = [...after.keys()].filter((n) => !before.has(n));
  const removed = [...before.keys()].filter((n) => !after.has(n));
  const changed = [...after.keys()].filter((n) => before.has(n) && before.get(n) !== after.get(n));
  const parts = [
    ...(added.length > 0 ? [`added: ${added.join(", ")}`] : []),
    ...(removed.length > 0 ? [`removed: ${removed.join(", ")}`] : []),
    ...(changed.length > 0 ? [`changed: ${changed.join(", ")}`] : []),
  ];
  return parts.length === 0 ? "the tools' order or server details changed" : parts.join("; ");
}

async function lockedTools(path: string): Promise<readonly McpLockTool[]> {
  try {
    const lock = JSON.parse(await readFile(path, "utf8")) as McpLock;
    return Array.isArray(lock.tools) ? lock.tools : [];
  } catch {
    return [];
  }
}

/** Written whole or not at all: a temp file beside it, then a rename. */
async function writeLock(path: string, text: string): Promise<boolean> {
  const current = await readFile(path, "utf8").catch(() => undefined);
  if (current === text) return false;
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, path);
  return true;
}

/** Fetches, compares or writes the lock of every `kind: mcp` manifest of `project`, as the flags say. */
export async function syncMcpLocks(project: Project, { root, check, refresh, env = process.env }: McpLockOptions): Promise<McpLockResult> {
  const diagnostics: Diagnostic[] = [];
  const written: string[] = [];
  for (const server of project.mcpServers ?? []) {
    // Without --refresh-mcp a lock that is there is the truth, and --check fetches nothing.
    if (!refresh && (server.lock !== "missing" || check)) continue;
    const fetched = await fetchLock(server, root, env);
    if ("error" in fetched) {
      diagnostics.push(createDiagnostic("MF1605", server.file, server.at, `cannot list the tools of MCP server \`${server.name}\`: ${fetched.error}`));
      continue;
    }
    const path = join(root, server.lockFile);
    if (check) {
      if (server.lock !== "ok") continue; // The loader reports the missing or invalid lock.
      const locked = await lockedTools(path);
      if (mcpToolsHash(locked) === fetched.lock.hash) continue;
      const changes = describeToolChanges(locked, fetched.lock.tools);
      diagnostics.push(
        createDiagnostic(
          "MF1606",
          server.file,
          server.at,
          `the tools of MCP server \`${server.name}\` differ from ${server.lockFile} (${changes}); run \`manifold gen --refresh-mcp\` and commit the lock file`,
        ),
      );
      continue;
    }
    if (await writeLock(path, formatMcpLock(fetched.lock))) written.push(server.lockFile);
  }
  return { diagnostics, written };
}
