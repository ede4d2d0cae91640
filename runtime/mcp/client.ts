/**
 * The typed client of a `kind: mcp` component: one method per capability (keyed by its `key`), each
 * calling the external server's tool through one shared session. Filled in by the MCP client work.
 */
import { ManifoldError } from "../errors/index.js";
import type { ComponentSpec } from "../spec/index.js";

export interface McpClientOptions {
  /** Per call. @defaultValue the spec's `timeoutMs`, else 30000 */
  readonly timeoutMs?: number;
  /** Where a stdio command runs. @defaultValue process.cwd() */
  readonly cwd?: string;
  /** Where `auth.token_env` and `env` names are read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Another address of the same server (a test's port): replaces the manifest's `url`. */
  readonly url?: string;
}

export type McpMethod = (input: unknown, options?: { readonly signal?: AbortSignal; readonly timeoutMs?: number }) => Promise<unknown>;

export function createMcpClient(spec: ComponentSpec, _options: McpClientOptions = {}): Record<string, McpMethod> {
  if (spec.mcpServer === undefined) throw new TypeError(`${spec.name} is not a kind: mcp component`);
  const client = Object.create(null) as Record<string, McpMethod>;
  for (const capability of spec.capabilities) {
    client[capability.key] = async () => {
      throw new ManifoldError("INTERNAL", `${spec.name}.${capability.name}: the MCP client is not built yet`);
    };
  }
  return client;
}
