/**
 * What an agent's orchestrator calls for the capabilities of the `kind: mcp` components it uses: a
 * step's target whose `invoke` calls the tool through the shared session (no HTTP), named
 * `mcp://<component>/<tool>` in messages. Built at once, connected on the first call; `release()`
 * gives every session back when the agent closes.
 */
import type { ComponentSpec } from "../spec/index.js";
import { acquireMcpSession, type McpSessionLease } from "./session-pool.js";
import type { McpSession } from "./session.js";
import { createMcpToolCall } from "./tool-call.js";

export interface McpTarget {
  readonly url: string;
  readonly invoke: (body: unknown, options: { readonly signal: AbortSignal; readonly timeoutMs: number }) => Promise<unknown>;
}

export interface McpTargets {
  /** The target of `component.capability`, when that component is an MCP server the agent uses. */
  target(component: string, capability: string): McpTarget | undefined;
  /** Each used MCP server's spec and session (for its registry entry and health). */
  readonly servers: readonly { readonly spec: ComponentSpec; readonly session: McpSession }[];
  release(): Promise<void>;
}

export interface McpTargetsOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
}

export function createMcpTargets(components: readonly ComponentSpec[], { env, cwd }: McpTargetsOptions = {}): McpTargets {
  const leases: McpSessionLease[] = [];
  const servers: { spec: ComponentSpec; session: McpSession }[] = [];
  const table = new Map<string, Map<string, McpTarget>>();
  for (const spec of components) {
    if (spec.mcpServer === undefined) continue;
    const lease = acquireMcpSession(spec.mcpServer, { name: spec.name, ...(env === undefined ? {} : { env }), ...(cwd === undefined ? {} : { cwd }) });
    leases.push(lease);
    servers.push({ spec, session: lease.session });
    const defaultTimeoutMs = spec.mcpServer.timeoutMs ?? 30_000;
    const byCapability = new Map<string, McpTarget>();
    for (const capability of spec.capabilities) {
      if (capability.mcpTool === undefined) continue;
      const call = createMcpToolCall({ component: spec.name, capability, session: () => lease.session, defaultTimeoutMs });
      byCapability.set(capability.name, {
        url: `mcp://${spec.name}/${encodeURIComponent(capability.mcpTool.name)}`,
        invoke: (body, { signal, timeoutMs }) => call(body, { signal, timeoutMs }),
      });
    }
    table.set(spec.name, byCapability);
  }
  return {
    target: (component, capability) => table.get(component)?.get(capability),
    servers,
    release: async () => {
      await Promise.all(leases.splice(0).map((lease) => lease.release()));
    },
  };
}
