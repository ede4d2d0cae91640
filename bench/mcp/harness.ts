/**
 * bench:mcp's callers and loops, shared with its CI smoke test (test/bench/mcp.test.ts). One capability
 * (the example weather-service's get_current_weather, same input every call) is called three ways:
 *
 * - `http`: a plain keep-alive POST to its route, the baseline;
 * - `mcp`: `tools/call` POSTed to `/mcp` over the same kind of keep-alive node:http client, in one
 *   session opened as a host opens it, its SSE answer read to the end: the server's MCP path against its
 *   HTTP path, with the client's share the same on both sides;
 * - `mcp (SDK client)`: the official SDK's `Client` over `StreamableHTTPClientTransport`, what a host
 *   written on the SDK pays end to end (fetch, the SDK's message parsing), for information.
 *
 * Every caller returns the structured answer, so the loops can check that each call got it right.
 */
import { Agent, request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export const CAPABILITY = "get_current_weather";
export const INPUT = { lat: 48.85, lon: 2.35 } as const;
const PROTOCOL_VERSION = "2025-06-18";

export interface Caller {
  readonly name: string;
  /** One call; resolves with the capability's structured answer. */
  call(): Promise<unknown>;
  close(): Promise<void>;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function post(agent: Agent, url: URL, body: unknown, headers: Readonly<Record<string, string>> = {}): Promise<Answer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers } },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (part: string) => (data += part));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** The JSON-RPC message of an MCP answer, whether it came as JSON or as one SSE `message` event. */
function rpcOf(answer: Answer): { result?: { structuredContent?: unknown; isError?: boolean }; error?: unknown } {
  if (answer.status !== 200) throw new Error(`MCP answered HTTP ${answer.status}: ${answer.body.slice(0, 200)}`);
  const type = String(answer.headers["content-type"] ?? "");
  if (!type.startsWith("text/event-stream")) return JSON.parse(answer.body);
  const data = answer.body
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim())
    .find((line) => line !== "");
  if (data === undefined) throw new Error(`no message in the SSE answer: ${answer.body.slice(0, 200)}`);
  return JSON.parse(data);
}

export function httpCaller(base: string): Caller {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const url = new URL(`/api/capabilities/${CAPABILITY}`, base);
  return {
    name: "http",
    async call() {
      const answer = await post(agent, url, INPUT);
      if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${answer.body.slice(0, 200)}`);
      return JSON.parse(answer.body);
    },
    close: async () => agent.destroy(),
  };
}

/** `tools/call` over node:http in one session, opened with `initialize` and `notifications/initialized`. */
export async function mcpCaller(base: string): Promise<Caller> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const url = new URL("/mcp", base);
  const accept = { accept: "application/json, text/event-stream" };
  const init = await post(
    agent,
    url,
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
    },
    accept,
  );
  rpcOf(init);
  const session = init.headers["mcp-session-id"];
  if (typeof session !== "string") throw new Error("initialize answered no Mcp-Session-Id");
  const headers = { ...accept, "mcp-session-id": session, "mcp-protocol-version": PROTOCOL_VERSION };
  await post(agent, url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  let id = 0;
  return {
    name: "mcp",
    async call() {
      const rpc = rpcOf(await post(agent, url, { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: CAPABILITY, arguments: INPUT } }, headers));
      if (rpc.result === undefined || rpc.result.isError === true) throw new Error(`tools/call failed: ${JSON.stringify(rpc).slice(0, 300)}`);
      return rpc.result.structuredContent;
    },
    close: async () => agent.destroy(),
  };
}

export async function sdkCaller(base: string): Promise<Caller> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  // The transport hands every POST its one long-lived abort signal, and undici lets go of each call's
  // listener on it only at garbage collection: thousands of calls between collections print
  // MaxListenersExceededWarning lines. A POST here is never aborted, so it goes without the signal.
  const fetchWithoutSignal = (input: string | URL, init?: RequestInit): Promise<Response> =>
    fetch(input, init?.method === "POST" ? { ...init, signal: null } : init);
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", base), { fetch: fetchWithoutSignal }));
  return {
    name: "mcp (SDK client)",
    async call() {
      const result = await client.callTool({ name: CAPABILITY, arguments: { ...INPUT } });
      if (result.isError === true) throw new Error(`tools/call failed: ${JSON.stringify(result).slice(0, 300)}`);
      return result.structuredContent;
    },
    close: () => client.close(),
  };
}

/** `calls` calls one after another: each one's round trip in ms, each answer checked by `check`. */
export async function sequential(caller: Caller, calls: number, check: (answer: unknown) => void): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const start = performance.now();
    const answer = await caller.call();
    times.push(performance.now() - start);
    check(answer);
  }
  return times;
}

/** `calls` calls with `concurrency` in flight at a time: the wall time in ms, each answer checked. */
export async function concurrent(caller: Caller, calls: number, concurrency: number, check: (answer: unknown) => void): Promise<number> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls) {
      next += 1;
      check(await caller.call());
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, calls) }, worker));
  return performance.now() - start;
}

export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
