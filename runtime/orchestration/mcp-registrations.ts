/**
 * The registry entries of the external MCP servers an agent uses (type `mcp`), so the dashboard shows
 * them beside the agent: one per HTTP server, at the server's host and port, with the capabilities it
 * gives the agent and the health of the agent's session to it (healthy while connected or never
 * tried, unhealthy after a failed connect), heartbeated and unregistered like the agent's own entry.
 * A stdio server has no address another process could name, so it is not registered.
 */
import { createHash } from "node:crypto";
import { startHeartbeat, type Heartbeat, type Registry } from "../discovery/index.js";
import { acquireMcpSession, describeMcpServer, type McpSessionLease } from "../mcp/index.js";
import { capabilityWire, type ComponentSpec } from "../spec/index.js";

export interface McpRegistrations {
  stop(): Promise<void>;
}

function hostAndPort(url: string): { address: string; port: number } | undefined {
  try {
    const parsed = new URL(url);
    const port = parsed.port === "" ? (parsed.protocol === "https:" ? 443 : 80) : Number(parsed.port);
    return { address: parsed.hostname, port };
  } catch {
    return undefined;
  }
}

export function registerMcpServers({
  components,
  registry,
  agentName,
  env,
  log,
}: {
  readonly components: readonly ComponentSpec[];
  readonly registry: Registry;
  readonly agentName: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly log: (message: string) => void;
}): McpRegistrations {
  const heartbeats: Heartbeat[] = [];
  const leases: McpSessionLease[] = [];
  for (const spec of components) {
    const server = spec.mcpServer;
    const at = server?.url === undefined ? undefined : hostAndPort(server.url);
    if (server === undefined || at === undefined) continue;
    // The agent's own session to the server (the pool gives the orchestrator's): its state is the entry's health.
    const lease = acquireMcpSession(server, { name: spec.name, ...(env === undefined ? {} : { env }) });
    leases.push(lease);
    const id = `${spec.name}-${createHash("sha256").update(`${agentName}\0${server.url}`).digest("hex").slice(0, 8)}`;
    const metadata = { version: spec.version, mcp_url: describeMcpServer(server), used_by: agentName, openapi: "false" };
    const registration = {
      id,
      name: spec.name,
      type: "mcp" as const,
      description: spec.description,
      ...at,
      metadata,
      capabilities: spec.capabilities.map(capabilityWire),
    };
    const health = async () => (lease.session.state() === "failed" ? ("unhealthy" as const) : ("healthy" as const));
    heartbeats.push(startHeartbeat(registry, registration, { health, log }));
  }
  return {
    async stop() {
      await Promise.all(heartbeats.splice(0).map((beat) => beat.stop()));
      await Promise.all(leases.splice(0).map((lease) => lease.release()));
    },
  };
}
