/**
 * The process's MCP client sessions, one per (component, server address, working folder), each with
 * a count of its holders: an agent's orchestrator and its handlers' clients share one session, and
 * the last release closes it (a stdio child then ends). The first holder's options (environment,
 * limits) make the session; later holders share it as it is.
 */
import type { McpServerSpec } from "../spec/index.js";
import { createSharedPool } from "../util/index.js";
import { createMcpSession, type McpSession, type McpSessionOptions } from "./session.js";

export interface McpSessionLease {
  readonly session: McpSession;
  /** Gives the hold back; idempotent. The last one closes the session. */
  release(): Promise<void>;
}

const pool = createSharedPool<McpSession>((session) => session.close());

function keyOf(name: string, { url, command, args, env, tokenEnv }: McpServerSpec, cwd: string | undefined): string {
  return JSON.stringify([name, url ?? null, command ?? null, args ?? [], env ?? [], tokenEnv ?? null, cwd ?? null]);
}

/** The shared session of `server` (created, not connected, when nobody holds one), held until released. */
export function acquireMcpSession(server: McpServerSpec, options: McpSessionOptions): McpSessionLease {
  const { hash: _hash, ...address } = server;
  const { value, release } = pool.acquire(keyOf(options.name, server, options.cwd), () => createMcpSession(address, options));
  return { session: value, release };
}

/** Sessions held right now, by component name (for tests and diagnostics). */
export function heldMcpSessions(): readonly { readonly name: string; readonly holders: number }[] {
  return pool.held().map(({ value, holders }) => ({ name: value.name, holders }));
}
