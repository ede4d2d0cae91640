/**
 * The only entry point generated code imports. Its exports are versioned by this path: when the
 * shape generated code relies on changes, a `codegen/v2` appears and old generated code keeps linking.
 */
import { createClient, serveComponent } from "../../component/index.js";
import type { BaseUrlSource, Client, CapabilityTypes, ClientOptions, ComponentOptions, RunningComponent } from "../../component/types.js";
import { defaultRegistry, discover, type Registry } from "../../discovery/index.js";
import type { ComponentSpec } from "../../spec/types.js";

export type {
  AuthOptions,
  BaseUrlSource,
  CallOptions,
  CapabilityTypes,
  Client,
  ClientOptions,
  ComponentOptions,
  ForwardOptions,
  Handler,
  HandlerContext,
  Handlers,
  RunningComponent,
} from "../../component/types.js";
export type { ComponentSpec } from "../../spec/types.js";

/**
 * A handle's client options: with a `baseUrl` the client calls there; without one it finds a
 * healthy replica of the component by name through discovery (the process's default registry —
 * Redis when configured, else the embedded in-memory one — or `registry`) before every call.
 */
export type HandleClientOptions = Omit<ClientOptions, "baseUrl"> & {
  readonly baseUrl?: BaseUrlSource;
  readonly registry?: Registry;
};

/** The typed handle a generated module exports for one component: `WeatherService.serve(...)`. */
export interface ComponentHandle<C extends CapabilityTypes> {
  readonly spec: ComponentSpec;
  serve(options: ComponentOptions<C>): Promise<RunningComponent>;
  client(options?: HandleClientOptions): Client<C>;
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

/** An agent's handle: a component that also calls the components it `uses`, through typed clients. */
export interface AgentHandle<C extends CapabilityTypes, U extends UsesHandles> extends ComponentHandle<C> {
  readonly uses: U;
  clients(options?: UsesClientOptions<U>): UsesClients<U>;
}

export function defineAgent<C extends CapabilityTypes, U extends UsesHandles>(spec: ComponentSpec, uses: U): AgentHandle<C, U> {
  return {
    ...defineComponent<C>(spec),
    uses,
    clients: ({ baseUrls, ...shared } = {}) => {
      const clients: Record<string, object> = {};
      for (const [key, handle] of Object.entries(uses)) {
        const baseUrl = baseUrls?.[key];
        clients[key] = handle.client(baseUrl === undefined ? shared : { ...shared, baseUrl });
      }
      return clients as UsesClients<U>;
    },
  };
}

export function defineComponent<C extends CapabilityTypes>(spec: ComponentSpec): ComponentHandle<C> {
  return {
    spec,
    serve: (options) => serveComponent<C>(spec, options),
    client: ({ baseUrl, registry, ...options } = {}) =>
      createClient<C>(spec, { ...options, baseUrl: baseUrl ?? discover(registry ?? defaultRegistry(), spec.name) }),
  };
}
