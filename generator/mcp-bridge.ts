/**
 * `manifold mcp <name|url>`: a running component's MCP endpoint (Streamable HTTP at `/mcp`) on stdio,
 * for hosts that launch a command (Claude Desktop, Cursor, …). The host's newline-delimited JSON-RPC
 * on stdin goes to the component and its answers come back on stdout (mcp-relay.ts); stdout carries
 * nothing else, every log line goes to stderr. The bearer token comes from `MANIFOLD_MCP_TOKEN` or
 * the variable `--token-env` names, and is never printed.
 *
 * Exit codes: 0 when the host closes stdin (or sends SIGTERM/SIGINT), 1 when the component goes away, refuses
 * the token at initialize or serves no MCP, 2 for a usage error (no target, an unknown name, an unset token variable).
 */
import type { Readable, Writable } from "node:stream";
import type { CliIo } from "./cli-io.js";

export const MCP_TOKEN_ENV = "MANIFOLD_MCP_TOKEN";

export interface BridgeOptions {
  /** A URL (`http://127.0.0.1:8092`, `…/mcp`) or a component name found in the registry. */
  readonly target: string | undefined;
  /** The variable holding the bearer token. @defaultValue `MANIFOLD_MCP_TOKEN` */
  readonly tokenEnv?: string | undefined;
  readonly io: CliIo;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** @defaultValue process.stdin */
  readonly stdin?: Readable;
  /** @defaultValue process.stdout */
  readonly stdout?: Writable;
}

class UsageError extends Error {}

/** The endpoint a URL names: as given when its path ends in `/mcp`, else `/mcp` under its path. */
export function mcpEndpointOf(target: string): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(`${JSON.stringify(target.slice(0, 200))} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`the URL must be http or https, not ${url.protocol}`);
  if (!/\/mcp\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, "")}/mcp`;
  return url;
}

/** The URL for printing: no user, password, query or fragment (they can hold secrets). */
function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** A name's endpoint, through the registry of the network's store (Redis: the embedded store is per process). */
async function endpointByName(name: string, env: Readonly<Record<string, string | undefined>>): Promise<URL> {
  const { createStore } = await import("../runtime/store/index.js");
  const { baseUrlOf, createRegistry, preferHealthy } = await import("../runtime/discovery/index.js");
  const store = createStore({ env, log: () => undefined, unref: true });
  try {
    if (store.kind === "memory") {
      throw new UsageError(
        `finding ${name} by name needs the network's Redis (REDIS_URL or MANIFOLD_REDIS_*): the embedded store lives inside each process, so this one sees no component. Give its URL instead (manifold mcp http://host:port)`,
      );
    }
    const entries = await createRegistry({ store, env }).byName(name, { health: ["healthy", "degraded"] });
    const entry = preferHealthy(entries)[0];
    if (entry === undefined)
      throw new UsageError(`no running component named ${name} is registered in the network's store: start it (with mcp: true), or give its URL`);
    return mcpEndpointOf(baseUrlOf(entry));
  } finally {
    await store.close();
  }
}

function bearer(tokenEnv: string | undefined, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const name = tokenEnv ?? MCP_TOKEN_ENV;
  const value = env[name]?.trim();
  if (tokenEnv !== undefined && (value === undefined || value === "")) throw new UsageError(`--token-env ${tokenEnv}: the variable is not set`);
  return value === "" ? undefined : value;
}

async function resolve(options: BridgeOptions): Promise<{ url: URL; token: string | undefined }> {
  const { target, tokenEnv, env = process.env } = options;
  if (target === undefined || target.trim() === "") throw new UsageError("mcp needs a target: a component name or its URL (manifold mcp weather-service)");
  const token = bearer(tokenEnv, env);
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? mcpEndpointOf(target) : await endpointByName(target, env);
  return { url, token };
}

/** Runs the bridge until the host closes stdin or the component goes away; returns the exit code. */
export async function runMcpBridge(options: BridgeOptions): Promise<number> {
  const { io, stdin = process.stdin, stdout = process.stdout } = options;
  let resolved: Awaited<ReturnType<typeof resolve>>;
  try {
    resolved = await resolve(options);
  } catch (error) {
    io.err(`manifold mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
  const { url, token } = resolved;
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { startRelay } = await import("./mcp-relay.js");
  const headers: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  const relay = startRelay({
    host: new StdioServerTransport(stdin, stdout),
    target: shown(url),
    log: (line) => io.err(`manifold mcp: ${line}\n`),
    connect: ({ unreachable }) =>
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers },
        // The server-to-client stream's reconnection fails quietly inside the SDK: a refused connection there means the component is gone.
        fetch: async (input, init) => {
          try {
            return await fetch(input, init);
          } catch (error) {
            if (init?.method === "GET" && init.signal?.aborted !== true) unreachable(causeOf(error));
            throw error;
          }
        },
      }),
  });
  io.err(`manifold mcp: bridging stdio to ${shown(url)}${token === undefined ? "" : " with a bearer token"}\n`);
  const stop = (): void => void relay.stop();
  stdin.once("end", stop);
  stdin.once("close", stop);
  // The host went away mid-write (EPIPE): nothing is left to answer.
  stdout.once("error", stop);
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  try {
    const end = await relay.ended;
    if (end.code !== 0) io.err(`manifold mcp: ${end.reason ?? "the bridge failed"}\n`);
    return end.code;
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
    stdin.off("end", stop);
    stdin.off("close", stop);
    stdout.off("error", stop);
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause !== undefined) return String(cause.code ?? cause.message);
  return error instanceof Error ? error.message : String(error);
}
