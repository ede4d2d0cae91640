/**
 * The process's A2A clients, one per remote agent (component name, JSON-RPC URL, token variable),
 * each with a count of its holders: an agent's orchestrator and its handlers' typed clients share one
 * SDK client, and the last release closes it (calls still in flight end with UNAVAILABLE). The SDK
 * loads on the first call, never at import time.
 */
import type { Client } from "@a2a-js/sdk/client";
import { ManifoldError } from "../errors/index.js";
import type { A2aAgentSpec } from "../spec/index.js";
import { createSharedPool } from "../util/index.js";

export interface A2aAgentOptions {
  /** The component's name, for messages. */
  readonly name: string;
  /** Where `tokenEnv` is read, on every request (a rotated token is picked up). @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** One remote agent as this process reaches it. */
export interface A2aAgent {
  readonly name: string;
  readonly url: string;
  /** The SDK client, created on first use. Rejects with UNAVAILABLE once the agent is closed. */
  client(): Promise<Client>;
  /** A signal that fires when the last holder releases the agent (calls in flight stop). */
  readonly closing: AbortSignal;
}

export interface A2aAgentLease {
  readonly agent: A2aAgent;
  /** Gives the hold back; idempotent. The last one closes the agent. */
  release(): Promise<void>;
}

/** A fetch that adds the bearer token named by `tokenEnv` (its value never reaches a message). */
function bearerFetch(name: string, tokenEnv: string | undefined, env: Readonly<Record<string, string | undefined>>): typeof fetch {
  if (tokenEnv === undefined) return (input, init) => fetch(input, init);
  return (input, init) => {
    const token = env[tokenEnv];
    if (token === undefined || token === "")
      throw new ManifoldError("UNAUTHORIZED", `${name}: the variable ${tokenEnv} holding the remote agent's token is not set`);
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

function createAgent(spec: A2aAgentSpec, { name, env = process.env }: A2aAgentOptions, closer: AbortController): A2aAgent {
  let made: Promise<Client> | undefined;
  const make = async (): Promise<Client> => {
    const [{ AgentCard }, { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory }] = await Promise.all([
      import("@a2a-js/sdk"),
      import("@a2a-js/sdk/client"),
    ]);
    // The lock's snapshot is the truth at run time: no card fetch, the JSON-RPC URL comes from the spec.
    const card = AgentCard.fromJSON({
      name,
      supportedInterfaces: [{ url: spec.url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      // Streamed, so the task id is known at once and a cancellation can name it.
      capabilities: { streaming: true },
    });
    const transports = [new JsonRpcTransportFactory({ fetchImpl: bearerFetch(name, spec.tokenEnv, env) })];
    return new ClientFactory({ ...ClientFactoryOptions.default, transports }).createFromAgentCard(card);
  };
  return {
    name,
    url: spec.url,
    closing: closer.signal,
    client: () => {
      if (closer.signal.aborted) return Promise.reject(new ManifoldError("UNAVAILABLE", `${name}: this A2A client is closed`));
      made ??= make().catch((error: unknown) => {
        made = undefined;
        throw error;
      });
      return made;
    },
  };
}

interface Pooled {
  readonly agent: A2aAgent;
  readonly closer: AbortController;
}

const pool = createSharedPool<Pooled>(({ closer }) => closer.abort());
// Holders reading the token from different environments (a test's, a tenant's) must not share a client.
const envIds = new WeakMap<object, number>();
let envCount = 0;
const envId = (env: object): number => {
  let id = envIds.get(env);
  if (id === undefined) envIds.set(env, (id = ++envCount));
  return id;
};

/** The shared client of the remote agent `spec` names, held until released. */
export function acquireA2aAgent(spec: A2aAgentSpec, options: A2aAgentOptions): A2aAgentLease {
  const key = JSON.stringify([options.name, spec.url, spec.tokenEnv ?? null, envId(options.env ?? process.env)]);
  const { value, release } = pool.acquire(key, () => {
    const closer = new AbortController();
    return { agent: createAgent(spec, options, closer), closer };
  });
  return { agent: value.agent, release };
}

/** Remote agents held right now, by component name (for tests and diagnostics). */
export function heldA2aAgents(): readonly { readonly name: string; readonly holders: number }[] {
  return pool.held().map(({ value, holders }) => ({ name: value.agent.name, holders }));
}
