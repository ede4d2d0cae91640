/**
 * The only entry point generated code imports. Its exports are versioned by this path: when the
 * shape generated code relies on changes, a `codegen/v2` appears and old generated code keeps linking.
 */
import { createClient, serveComponent } from "../../component/index.js";
import type { BaseUrlSource, Client, CapabilityTypes, ClientOptions, ComponentOptions, RunningComponent } from "../../component/types.js";
import { defaultRegistry, discover, type Registry } from "../../discovery/index.js";
import type { ComponentSpec } from "../../spec/types.js";
import { createTaskClient } from "../../tasks/index.js";
import { createWorkflowClient, serveAgent, type AgentServeOptions, type AgentTaskClient, type AgentTaskTypes, type WorkflowClient, type WorkflowTypes } from "./agent.js";

export type {
  AgentServeOptions,
  AgentTaskClient,
  AgentTaskHandlers,
  AgentTaskTypes,
  WorkflowCallOptions,
  WorkflowClient,
  WorkflowResponse,
  WorkflowTypes,
} from "./agent.js";
export type { TaskContext, TaskHandler } from "../../tasks/index.js";

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
export interface AgentHandle<C extends CapabilityTypes, U extends UsesHandles, W extends WorkflowTypes = {}, T extends AgentTaskTypes = {}>
  extends Omit<ComponentHandle<C>, "serve"> {
  readonly uses: U;
  /** Serves the capabilities plus `/orchestrate/*` and `/api/v1/tasks` as the manifest enables them. */
  serve(options: AgentServeOptions<C, T>): Promise<RunningComponent>;
  clients(options?: UsesClientOptions<U>): UsesClients<U>;
  /** Typed client of the workflows the agent serves; without `baseUrl` the agent is found through discovery. */
  workflows(options?: HandleClientOptions): WorkflowClient<W>;
  /** Typed client of the agent's task types: submit, get, cancel, wait. */
  tasks(options?: HandleClientOptions): AgentTaskClient<T>;
}

export function defineAgent<C extends CapabilityTypes, U extends UsesHandles, W extends WorkflowTypes = {}, T extends AgentTaskTypes = {}>(
  spec: ComponentSpec,
  uses: U,
): AgentHandle<C, U, W, T> {
  const usedSpecs = Object.values(uses).map((handle) => handle.spec);
  const where = (baseUrl: BaseUrlSource | undefined, registry: Registry | undefined): BaseUrlSource => baseUrl ?? discover(registry ?? defaultRegistry(), spec.name);
  return {
    ...defineComponent<C>(spec),
    uses,
    serve: (options) => serveAgent<C, T>(spec, usedSpecs, options),
    clients: ({ baseUrls, ...shared } = {}) => {
      const clients: Record<string, object> = {};
      for (const [key, handle] of Object.entries(uses)) {
        const baseUrl = baseUrls?.[key];
        clients[key] = handle.client(baseUrl === undefined ? shared : { ...shared, baseUrl });
      }
      return clients as UsesClients<U>;
    },
    workflows: ({ baseUrl, registry, ...options } = {}) => createWorkflowClient<W>(spec, { ...options, baseUrl: where(baseUrl, registry) }),
    tasks: ({ baseUrl, registry, ...options } = {}) => createTaskClient(spec, { ...options, baseUrl: where(baseUrl, registry) }) as AgentTaskClient<T>,
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
