/**
 * The client end of MCP: one connected SDK `Client` to an external server, over Streamable HTTP
 * (`url`) or stdio (`command` + `args`). `manifold gen` uses it to snapshot `tools/list`, the runtime
 * to call tools. The SDK is imported on first use, so a component that never talks to an MCP server
 * never loads it.
 */
import { ManifoldError } from "../errors/index.js";
import type { McpLockTool, McpServerSpec } from "../spec/index.js";

export type McpServerAddress = Omit<McpServerSpec, "hash">;

/** One tool as `tools/list` lists it: what gen and the runtime read. */
export interface McpListedTool {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>> | undefined;
  readonly annotations?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * What Manifold uses of the SDK's `Client`, named here instead of the SDK's own type: the SDK's
 * declarations reach the DOM's fetch types (`HeadersInit`), which a user's strict project without
 * the DOM library does not have, so naming them in our public declarations broke its typecheck.
 */
export interface McpClientHandle {
  listTools(params?: { cursor?: string }): Promise<{ readonly tools: readonly McpListedTool[]; readonly nextCursor?: string | undefined }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: { signal?: AbortSignal; timeout?: number; resetTimeoutOnProgress?: boolean; maxTotalTimeout?: number },
  ): Promise<unknown>;
  getServerVersion(): { readonly name: string; readonly version: string } | undefined;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
}

export interface ConnectMcpOptions {
  /** The component's name, for messages. */
  readonly name: string;
  /** Where a stdio command runs and its relative paths resolve. @defaultValue process.cwd() */
  readonly cwd?: string;
  /** Where `tokenEnv` and the names in `env` are read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The client's name in `initialize`. @defaultValue "manifold" */
  readonly clientName?: string;
  /** For `initialize`. @defaultValue 30000 */
  readonly timeoutMs?: number;
  /** A stdio server's stderr: "ignore" keeps it out of the caller's output. @defaultValue "inherit" */
  readonly stderr?: "inherit" | "ignore" | "pipe";
}

/** The bearer token an HTTP server gets, from the variable the manifest names; unset is an error. */
function tokenOf(address: McpServerAddress, name: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (address.tokenEnv === undefined) return undefined;
  const value = env[address.tokenEnv]?.trim();
  if (value === undefined || value === "") throw new ManifoldError("UNAUTHORIZED", `${name}: the variable ${address.tokenEnv} (auth.token_env) is not set`);
  return value;
}

/** Connects and initialises; rejects with NETWORK_ERROR when the server cannot be reached or refuses. */
export async function connectMcpServer(
  address: McpServerAddress,
  { name, cwd = process.cwd(), env = process.env, clientName = "manifold", timeoutMs = 30_000, stderr = "inherit" }: ConnectMcpOptions,
): Promise<McpClientHandle> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: clientName, version: "1.0.0" });
  let transport: import("@modelcontextprotocol/sdk/shared/transport.js").Transport;
  if (address.url !== undefined) {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const token = tokenOf(address, name, env);
    transport = new StreamableHTTPClientTransport(new URL(address.url), {
      requestInit: token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
    });
  } else if (address.command !== undefined) {
    const { StdioClientTransport, getDefaultEnvironment } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const passed: Record<string, string> = getDefaultEnvironment();
    for (const key of address.env ?? []) {
      const value = env[key];
      if (value !== undefined) passed[key] = value;
    }
    transport = new StdioClientTransport({ command: address.command, args: [...(address.args ?? [])], env: passed, cwd, stderr });
  } else {
    throw new ManifoldError("INVALID_INPUT", `${name}: an MCP server needs a url or a command`);
  }
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    const status = (error as { code?: unknown } | null)?.code;
    if (address.url !== undefined && (status === 401 || status === 403)) {
      const fix = address.tokenEnv === undefined ? "the manifest names no auth.token_env" : `check ${address.tokenEnv} (auth.token_env)`;
      throw new ManifoldError("UNAUTHORIZED", `${name}: the MCP server (${describe(address)}) refused the credentials (HTTP ${status}): ${fix}`, {
        cause: error,
      });
    }
    throw new ManifoldError("NETWORK_ERROR", `${name}: cannot reach the MCP server (${describe(address)}): ${messageOf(error)}`, { cause: error });
  }
  return client as unknown as McpClientHandle;
}

/** The server as messages show it: the URL without credentials or query, or the command. */
export function describe(address: McpServerAddress): string {
  if (address.url !== undefined) {
    try {
      const url = new URL(address.url);
      return `${url.protocol}//${url.host}${url.pathname}`;
    } catch {
      return "an invalid URL";
    }
  }
  return `command ${address.command ?? "?"}`;
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/** Every tool of `tools/list` (all pages, at most `maxTools`), sorted by name, with the server's identity. */
export async function listMcpTools(
  client: McpClientHandle,
  { maxTools = 1000 }: { readonly maxTools?: number } = {},
): Promise<{ readonly server: { readonly name: string; readonly version: string }; readonly tools: readonly McpLockTool[] }> {
  const tools: McpLockTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    for (const tool of page.tools) {
      if (tools.length >= maxTools) throw new ManifoldError("LIMIT_EXCEEDED", `the server lists more than ${maxTools} tools`);
      tools.push({
        name: tool.name,
        ...(tool.title === undefined ? {} : { title: tool.title }),
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
        ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const info = client.getServerVersion();
  return { server: { name: info?.name ?? "unknown", version: info?.version ?? "unknown" }, tools };
}
