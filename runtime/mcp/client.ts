/**
 * The typed client of a `kind: mcp` component: one method per capability (keyed by its `key`), each
 * calling the external server's tool through the process's shared session for that server. The
 * session is taken on the first call and given back by `closeMcpClient`, or when the client is
 * garbage-collected (a handler's `clients()` made per request holds nothing once it is gone).
 */
import { ManifoldError } from "../errors/index.js";
import type { ComponentSpec } from "../spec/index.js";
import { closeLeasedClient, createClientLease } from "../util/index.js";
import { acquireMcpSession } from "./session-pool.js";
import { createMcpToolCall } from "./tool-call.js";

export interface McpClientOptions {
  /** Per call. @defaultValue the spec's `timeoutMs`, else 30000 */
  readonly timeoutMs?: number;
  /** Where a stdio command runs. @defaultValue process.cwd() */
  readonly cwd?: string;
  /** Where `auth.token_env` and `env` names are read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Another address of the same server (a test's port): replaces the manifest's `url`. */
  readonly url?: string;
  /** What an agent's `clients()` passes as the component's address: a string is taken as `url`; other handle options are ignored. */
  readonly baseUrl?: unknown;
  /** A stdio server's stderr. @defaultValue "inherit" */
  readonly stderr?: "inherit" | "ignore";
}

export type McpMethod = (input: unknown, options?: { readonly signal?: AbortSignal; readonly timeoutMs?: number }) => Promise<unknown>;

/** The server spec a client calls: the manifest's, with `url` replaced when the options give one. */
function serverOf(spec: ComponentSpec, { url, baseUrl }: McpClientOptions) {
  const server = spec.mcpServer;
  if (server === undefined) throw new TypeError(`${spec.name} is not a kind: mcp component`);
  const replaced = url ?? (typeof baseUrl === "string" ? baseUrl : undefined);
  if (replaced === undefined) return server;
  if (server.url === undefined) throw new TypeError(`${spec.name} is a stdio MCP server: it has no url to replace`);
  return { ...server, url: replaced };
}

export function createMcpClient(spec: ComponentSpec, options: McpClientOptions = {}): Record<string, McpMethod> {
  const server = serverOf(spec, options);
  const { cwd, env, stderr } = options;
  const defaultTimeoutMs = options.timeoutMs ?? server.timeoutMs ?? 30_000;
  const held = createClientLease(
    () =>
      acquireMcpSession(server, {
        name: spec.name,
        ...(cwd === undefined ? {} : { cwd }),
        ...(env === undefined ? {} : { env }),
        ...(stderr === undefined ? {} : { stderr }),
      }),
    () => new ManifoldError("UNAVAILABLE", `${spec.name}: this MCP client is closed`),
  );
  const session = () => held.lease().session;
  const client = Object.create(null) as Record<string, McpMethod>;
  for (const capability of spec.capabilities) {
    client[capability.key] = createMcpToolCall({ component: spec.name, capability, session, defaultTimeoutMs });
  }
  held.bind(client);
  return client;
}

/** Gives back the client's hold on its session (the last holder's release closes it: a stdio child ends). */
export async function closeMcpClient(client: object): Promise<void> {
  await closeLeasedClient(client);
}
