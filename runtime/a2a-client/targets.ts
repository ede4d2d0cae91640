/**
 * What an agent's orchestrator calls for the capabilities of the `kind: a2a` components it uses: a
 * step's target whose `invoke` sends the remote skill a message and follows its task (no HTTP route
 * of ours in between), named `a2a://<component>/<skill>` in messages. Built at once, the SDK loaded on
 * the first call; `release()` gives every remote agent back when the agent closes.
 */
import type { ComponentSpec } from "../spec/index.js";
import { systemClock, type Clock } from "../util/index.js";
import { acquireA2aAgent, type A2aAgentLease } from "./agent-pool.js";
import { remoteOf } from "./client.js";
import { createA2aSkillCall } from "./skill-call.js";

export interface A2aTarget {
  readonly url: string;
  readonly invoke: (body: unknown, options: { readonly signal: AbortSignal; readonly timeoutMs: number }) => Promise<unknown>;
}

export interface A2aTargets {
  /** The target of `component.capability`, when that component is a remote A2A agent the agent uses. */
  target(component: string, capability: string): A2aTarget | undefined;
  /** How many remote agents are used (0: nothing to route). */
  readonly size: number;
  release(): Promise<void>;
}

export interface A2aTargetsOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly clock?: Clock;
  /** Remote agents' addresses by component name (an agent's `baseUrls`): `<base>/a2a` replaces the lock's URL. */
  readonly baseUrls?: Readonly<Record<string, string>>;
}

export function createA2aTargets(components: readonly ComponentSpec[], { env, clock = systemClock, baseUrls = {} }: A2aTargetsOptions = {}): A2aTargets {
  const leases: A2aAgentLease[] = [];
  const table = new Map<string, Map<string, A2aTarget>>();
  for (const spec of components) {
    if (spec.a2aAgent === undefined) continue;
    const remote = remoteOf(spec, { baseUrl: baseUrls[spec.name] });
    const lease = acquireA2aAgent(remote, { name: spec.name, ...(env === undefined ? {} : { env }) });
    leases.push(lease);
    const defaultTimeoutMs = remote.timeoutMs ?? 30_000;
    const byCapability = new Map<string, A2aTarget>();
    for (const capability of spec.capabilities) {
      if (capability.a2aSkill === undefined) continue;
      const call = createA2aSkillCall({ component: spec.name, capability, agent: () => lease.agent, defaultTimeoutMs, clock, pollMs: 500 });
      byCapability.set(capability.name, {
        url: `a2a://${spec.name}/${encodeURIComponent(capability.a2aSkill.id)}`,
        invoke: (body, { signal, timeoutMs }) => call(body, { signal, timeoutMs }),
      });
    }
    table.set(spec.name, byCapability);
  }
  return {
    target: (component, capability) => table.get(component)?.get(capability),
    size: table.size,
    release: async () => {
      await Promise.all(leases.splice(0).map((lease) => lease.release()));
    },
  };
}
