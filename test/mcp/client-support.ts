/**
 * The client-side MCP suites' external server: test/mcp/external/notes-server.ts (the SDK's own
 * McpServer) as a child process, and its component spec as the manifest loader builds it from
 * test/mcp/external/notes.yaml and the lock `manifold gen` wrote beside it (notes.mcp-lock.json), so
 * the suites run what a user's generated code runs.
 */
import { fileURLToPath } from "node:url";
import { loadComponentFile } from "../../runtime/manifest/index.js";
import type { ComponentSpec, McpServerSpec } from "../../runtime/spec/index.js";
import { startProcess, type Started } from "../support/processes.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const NOTES_SERVER = "test/mcp/external/notes-server.ts";

const LOADED = await loadComponentFile("test/mcp/external/notes.yaml", { features: [], cwd: ROOT });

/** The `kind: mcp` component's spec for the notes server at `server` (the manifest's stdio command by default). */
export function notesSpec(server: Partial<McpServerSpec> = {}, name = "notes"): ComponentSpec {
  const address = server.url === undefined ? { command: process.execPath, args: [...TS_NODE_ARGS, NOTES_SERVER] } : {};
  return { ...LOADED, name, mcpServer: { ...address, ...server, hash: LOADED.mcpServer!.hash } };
}

/** The notes server over Streamable HTTP on `port` (a free one by default), requiring `token` when given. */
export async function startNotesHttp({
  port = "free" as number | "free",
  token,
}: {
  port?: number | "free";
  token?: string;
} = {}): Promise<Started & { url: string; port: number }> {
  const chosen = port === "free" ? (await import("../support/ports.js")).freePort() : port;
  const at = await chosen;
  const started = await startProcess({
    name: `notes-server:${at}`,
    entry: NOTES_SERVER,
    args: ["--http", "--port", String(at), ...(token === undefined ? [] : ["--token", token])],
    ready: { line: /^listening (\S+)$/ },
  });
  return Object.assign(started, { url: started.url!, port: at });
}
