/**
 * The process's MCP client sessions, one per (component, server address, working folder), each with
 * a count of its holders: an agent's orchestrator and its handlers' clients share one session, and
 * the last release closes it (a stdio child then ends). The first holder's options (environment,
 * limits) make the session; later holders share it as it is.
 */
import type { McpServerSpec } from "../spec/index.js";
import { createMcpSession, type McpSession, type McpSessionOptions } from "./session.js";

export interface McpSessionLease {
  readonly session: McpSession;
  /** Gives the hold back; idempotent. The last one closes the session. */
  release(): Promise<void>;
}

interface Pooled {
  readonly session: McpSession;
  holders: number;
}

const pool = new Map<string, Pooled>();

function keyOf(name: string, { url, command, args, env, tokenEnv }: McpServerSpec, cwd: string | undefined): string {
  return JSON.stringify([name, url ?? null, command ?? null, args ?? [], env ?? [], tokenEnv ?? null, cwd ?? null]);
}

/** The shared session of `server` (created, not connected, when nobody holds one), held until released. */
export function acquireMcpSession(server: McpServerSpec, options: McpSessionOptions): McpSessionLease {
  const key = keyOf(options.name, server, options.cwd);
  let pooled = pool.get(key);
  if (pooled === undefined) {
    const { hash: _hash, ...address } = server;
    pool.set(key, (pooled = { session: createMcpSession(address, options), holders: 0 }));
  }
  pooled.holders += 1;
  const held = pooled;
  let released = false;
  return {
    session: held.session,
    async release() {
      if (released) return;
      released = true;
      held.holders -= 1;
      if (held.holders > 0) return;
      if (pool.get(key) === held) pool.delete(key);
      await held.session.close();
    },
  };
}

/** Sessions held right now, by component name (for tests and diagnostics). */
export function heldMcpSessions(): readonly { readonly name: string; readonly holders: number }[] {
  return [...pool.values()].map(({ session, holders }) => ({ name: session.name, holders }));
}
