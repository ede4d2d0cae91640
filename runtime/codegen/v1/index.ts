/**
 * The only entry point generated code imports. Its exports are versioned by this path: when the
 * shape generated code relies on changes, a `codegen/v2` appears and old generated code keeps linking.
 */
import { createClient, serveComponent } from "../../component/index.js";
import type { BaseUrlSource, Client, CapabilityTypes, ClientOptions, ComponentOptions, RunningComponent } from "../../component/types.js";
import type { ComponentSpec } from "../../spec/types.js";

export type {
  BaseUrlSource,
  CallOptions,
  CapabilityTypes,
  Client,
  ClientOptions,
  ComponentOptions,
  Handler,
  HandlerContext,
  Handlers,
  RunningComponent,
} from "../../component/types.js";
export type { ComponentSpec } from "../../spec/types.js";

/** The typed handle a generated module exports for one component: `WeatherService.serve(...)`. */
export interface ComponentHandle<C extends CapabilityTypes> {
  readonly spec: ComponentSpec;
  serve(options: ComponentOptions<C>): Promise<RunningComponent>;
  client(options: ClientOptions): Client<C>;
}

/** What an agent's `uses` holds: the handles of the components it calls. */
export interface UsableHandle {
  readonly spec: ComponentSpec;
  client(options: ClientOptions): object;
}

export type UsesHandles = { readonly [key: string]: UsableHandle };

/** One typed client per used component, under the same key as in `uses`. */
export type UsesClients<U extends UsesHandles> = { readonly [K in keyof U]: ReturnType<U[K]["client"]> };

export interface UsesClientOptions<U extends UsesHandles> {
  /** Where each used component is; one without an entry is found through discovery by name. */
  readonly baseUrls?: { readonly [K in keyof U]?: BaseUrlSource };
  /** @defaultValue 30000 */
  readonly timeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An agent's handle: a component that also calls the components it `uses`, through typed clients. */
export interface AgentHandle<C extends CapabilityTypes, U extends UsesHandles> extends ComponentHandle<C> {
  readonly uses: U;
  clients(options?: UsesClientOptions<U>): UsesClients<U>;
}

export function defineAgent<C extends CapabilityTypes, U extends UsesHandles>(spec: ComponentSpec, uses: U): AgentHandle<C, U> {
  return {
    ...defineComponent<C>(spec),
    uses,
    clients: ({ baseUrls, timeoutMs, headers } = {}) => {
      const clients: Record<string, object> = {};
      for (const [key, handle] of Object.entries(uses)) {
        const baseUrl = baseUrls?.[key];
        if (baseUrl === undefined) throw new TypeError(`no baseUrl for ${handle.spec.name}`);
        clients[key] = handle.client({ baseUrl, ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(headers === undefined ? {} : { headers }) });
      }
      return clients as UsesClients<U>;
    },
  };
}

export function defineComponent<C extends CapabilityTypes>(spec: ComponentSpec): ComponentHandle<C> {
  return {
    spec,
    serve: (options) => serveComponent<C>(spec, options),
    client: (options) => createClient<C>(spec, options),
  };
}
