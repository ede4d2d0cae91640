/**
 * The MCP server suites' helpers: served components' quiet options, the official SDK's `Client` over
 * `StreamableHTTPClientTransport`, and raw requests to `/mcp` for what a client library hides (status
 * codes, headers, a session id used after it has ended).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { within } from "../support/wait.js";

/** A component served in-process: a free port, no registry, no signal handlers, no log lines. */
export const QUIET = { port: 0, handleSignals: false, registry: false, log: (): undefined => undefined, drainTimeoutMs: 500 } as const;

export interface Connected {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
}

/** An SDK client connected (initialised) to `<url>/mcp`, sending `headers` on every request. */
export async function connect(url: string, headers: Readonly<Record<string, string>> = {}): Promise<Connected> {
  const client = new Client({ name: "manifold-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { ...headers } } });
  await within("the MCP client to connect", client.connect(transport));
  return { client, transport };
}

export async function disconnect({ client }: Connected): Promise<void> {
  await client.close().catch(() => undefined);
}

const ACCEPT = { Accept: "application/json, text/event-stream", "Content-Type": "application/json" };

/** One JSON-RPC message POSTed to `/mcp`, raw. */
export function post(url: string, message: unknown, headers: Readonly<Record<string, string>> = {}): Promise<Response> {
  return within("an MCP POST", fetch(`${url}/mcp`, { method: "POST", headers: { ...ACCEPT, ...headers }, body: JSON.stringify(message) }));
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } },
};

export const LIST_TOOLS = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };

/** Opens a session as a client would (initialize, then the initialized notification); its id. */
export async function openSession(url: string, headers: Readonly<Record<string, string>> = {}): Promise<string> {
  const answer = await post(url, INITIALIZE, headers);
  if (answer.status !== 200) throw new Error(`initialize answered ${answer.status}: ${await answer.text()}`);
  await answer.text();
  const id = answer.headers.get("mcp-session-id");
  if (id === null) throw new Error("initialize answered no Mcp-Session-Id");
  const initialized = await post(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { ...headers, "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18" },
  );
  await initialized.text();
  return id;
}

/** `tools/list` in session `id`, raw: the status, and the body read to its end. */
export async function listIn(url: string, id: string, headers: Readonly<Record<string, string>> = {}): Promise<{ status: number; text: string }> {
  const answer = await post(url, LIST_TOOLS, { ...headers, "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18" });
  return { status: answer.status, text: await answer.text() };
}
