/**
 * The typed client of a `kind: a2a` component: one method per capability (keyed by its `key`), each
 * calling the remote agent's skill through the process's shared A2A client for that agent. The hold
 * is taken on the first call and given back by `closeA2aClient`, or when the client is
 * garbage-collected (a handler's `clients()` made per request holds nothing once it is gone).
 */
import { ManifoldError } from "../errors/index.js";
import type { ComponentSpec } from "../spec/index.js";
import { closeLeasedClient, createClientLease, systemClock, type Clock } from "../util/index.js";
import { acquireA2aAgent } from "./agent-pool.js";
import { createA2aSkillCall, type A2aSkillCall } from "./skill-call.js";

export interface A2aClientOptions {
  /** Per call, following the remote task to its end. @defaultValue the spec's `timeoutMs`, else 30000 */
  readonly timeoutMs?: number;
  /** Where `tokenEnv` is read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Another JSON-RPC URL of the same agent (a test's port): replaces the lock's `url`. */
  readonly url?: string;
  /** What an agent's `clients()` passes as the component's address: a string is taken as the agent's base URL (`<base>/a2a`). */
  readonly baseUrl?: unknown;
  /** Times the call's deadline and the GetTask polls. @defaultValue the system clock */
  readonly clock?: Clock;
  /** Between GetTask polls when a stream ended before its task settled. @defaultValue 500 */
  readonly pollMs?: number;
}

export type A2aMethod = A2aSkillCall;

/** The remote agent a client calls: the lock's, with `url` replaced when the options give one. */
export function remoteOf(spec: ComponentSpec, { url, baseUrl }: Pick<A2aClientOptions, "url" | "baseUrl"> = {}) {
  const remote = spec.a2aAgent;
  if (remote === undefined) throw new TypeError(`${spec.name} is not a kind: a2a component`);
  const replaced = url ?? (typeof baseUrl === "string" ? `${baseUrl.replace(/\/+$/, "")}/a2a` : undefined);
  return replaced === undefined ? remote : { ...remote, url: replaced };
}

export function createA2aClient(spec: ComponentSpec, options: A2aClientOptions = {}): Record<string, A2aMethod> {
  const remote = remoteOf(spec, options);
  const { env, clock = systemClock, pollMs = 500 } = options;
  const defaultTimeoutMs = options.timeoutMs ?? remote.timeoutMs ?? 30_000;
  const held = createClientLease(
    () => acquireA2aAgent(remote, { name: spec.name, ...(env === undefined ? {} : { env }) }),
    () => new ManifoldError("UNAVAILABLE", `${spec.name}: this A2A client is closed`),
  );
  const agent = () => held.lease().agent;
  const client = Object.create(null) as Record<string, A2aMethod>;
  for (const capability of spec.capabilities) {
    if (capability.a2aSkill === undefined) continue;
    client[capability.key] = createA2aSkillCall({ component: spec.name, capability, agent, defaultTimeoutMs, clock, pollMs });
  }
  held.bind(client);
  return client;
}

/** Gives back the client's hold on its remote agent (the last holder's release stops its calls in flight). */
export async function closeA2aClient(client: object): Promise<void> {
  await closeLeasedClient(client);
}
