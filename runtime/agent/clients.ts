/**
 * The client side of an agent handle: where a handle's client calls (a base URL, or a replica found
 * through discovery by name), and one typed client per component the agent `uses`.
 */
import type { BaseUrlSource, ClientOptions } from "../component/index.js";
import { defaultRegistry, discover, type Registry } from "../discovery/index.js";
import type { ComponentSpec } from "../spec/index.js";

/**
 * A handle's client options: with a `baseUrl` the client calls there; without one it finds a
 * healthy replica of the component by name through discovery (the process's default registry —
 * Redis when configured, else the embedded in-memory one — or `registry`) before every call.
 */
export type HandleClientOptions = Omit<ClientOptions, "baseUrl"> & {
  readonly baseUrl?: BaseUrlSource;
  readonly registry?: Registry;
};

/** A handle's options as a client's: calls go to the given base URL, else to the component `name` found by discovery. */
export function handleClientOptions(name: string, { baseUrl, registry, ...options }: HandleClientOptions = {}): ClientOptions {
  return { ...options, baseUrl: baseUrl ?? discover(registry ?? defaultRegistry(), name) };
}

/** What an agent's `uses` holds: the handles of the components it calls. */
export interface UsableHandle {
  readonly spec: ComponentSpec;
  client(options?: HandleClientOptions): object;
}

export type UsesHandles = { readonly [key: string]: UsableHandle };

/** One typed client per used component, under the same key as in `uses`. */
export type UsesClients<U extends UsesHandles> = { readonly [K in keyof U]: ReturnType<U[K]["client"]> };

export type UsesClientOptions<U extends UsesHandles> = Omit<HandleClientOptions, "baseUrl"> & {
  /** Where each used component is; one without an entry is found through discovery by name. */
  readonly baseUrls?: { readonly [K in keyof U]?: BaseUrlSource };
};

export function createUsesClients<U extends UsesHandles>(uses: U, { baseUrls, ...shared }: UsesClientOptions<U> = {}): UsesClients<U> {
  const clients: Record<string, object> = {};
  for (const [key, handle] of Object.entries(uses)) {
    const baseUrl = baseUrls?.[key];
    clients[key] = handle.client(baseUrl === undefined ? shared : { ...shared, baseUrl });
  }
  return clients as UsesClients<U>;
}
