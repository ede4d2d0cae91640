/**
 * The only entry point generated code imports. Its exports are versioned by this path: when the
 * shape generated code relies on changes, a `codegen/v2` appears and old generated code keeps linking.
 * It holds the `define…` functions and re-exports; what runs lives in the runtime folders.
 */
// Only what every generated module needs at load time, each from its own light module: a plain
// tool must not load the agent's serving runtime, its features, or the orchestration, tasks, MCP and
// A2A runtimes (hundreds of modules a plain tool never runs). The agent runtime loads when an agent serves.
import type { AgentServeOptions } from "../../agent/index.js";
import {
  createUsesClients,
  handleClientOptions,
  type HandleClientOptions,
  type UsesClientOptions,
  type UsesClients,
  type UsesHandles,
} from "../../agent/clients.js";
import { createClient, serveComponent, startupError } from "../../component/index.js";
import type { CapabilityTypes, Client, ComponentOptions, RunningComponent } from "../../component/index.js";
import { createWorkflowClient, type OrchestrationClient, type WorkflowTypes } from "../../orchestration/client.js";
import { createMcpClient, type McpClientOptions } from "../../mcp/client.js";
import { createA2aClient, type A2aClientOptions } from "../../a2a-client/client.js";
import type { ComponentSpec } from "../../spec/index.js";
import { createTaskClient, type TaskClient } from "../../tasks/client.js";
import type { AgentTaskTypes } from "../../tasks/index.js";

export type { AgentServeOptions, HandleClientOptions, UsableHandle, UsesClientOptions, UsesClients, UsesHandles } from "../../agent/index.js";
export type {
  NaturalClient,
  NaturalResponse,
  OrchestrationClient,
  WorkflowCallOptions,
  WorkflowClient,
  WorkflowResponse,
  WorkflowTypes,
} from "../../orchestration/served.js";
export type { AgentTaskHandlers, AgentTaskTypes, TaskContext, TaskHandler } from "../../tasks/index.js";
export type { ScheduledContext, ScheduledHandler, ScheduledRequest, ScheduledSkip } from "../../scheduling/index.js";
export type { ChatAnswer, ChatEvent, ChatHandler, ChatHandlerContext, ChatMessage, ChatTurnInput } from "../../chat/index.js";
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
} from "../../component/index.js";
export type { ComponentSpec } from "../../spec/index.js";
export type { McpClientOptions } from "../../mcp/index.js";
export type { A2aClientOptions } from "../../a2a-client/index.js";

export type AgentTaskClient<T extends AgentTaskTypes> = TaskClient<{ [K in keyof T]: { input: T[K]["input"]; output: T[K]["output"] } }>;

/** The typed handle a generated module exports for one component: `WeatherService.serve(...)`. */
export interface ComponentHandle<C extends CapabilityTypes> {
  readonly spec: ComponentSpec;
  serve(options: ComponentOptions<C>): Promise<RunningComponent>;
  client(options?: HandleClientOptions): Client<C>;
}

/** An agent's handle: a component that also calls the components it `uses`, through typed clients. */
export interface AgentHandle<
  C extends CapabilityTypes,
  U extends UsesHandles,
  W extends WorkflowTypes = {},
  T extends AgentTaskTypes = {},
  N extends boolean = false,
> extends Omit<ComponentHandle<C>, "serve"> {
  readonly uses: U;
  /** Serves the capabilities plus the routes of every feature the manifest enables. */
  serve(options: AgentServeOptions<C, T>): Promise<RunningComponent>;
  clients(options?: UsesClientOptions<U>): UsesClients<U>;
  /**
   * Typed client of the workflows the agent serves, plus `natural()` when its manifest sets
   * `orchestration.natural`; without `baseUrl` the agent is found through discovery.
   */
  workflows(options?: HandleClientOptions): OrchestrationClient<W, N>;
  /** Typed client of the agent's task types: submit, get, cancel, wait. */
  tasks(options?: HandleClientOptions): AgentTaskClient<T>;
}

export function defineAgent<
  C extends CapabilityTypes,
  U extends UsesHandles,
  W extends WorkflowTypes = {},
  T extends AgentTaskTypes = {},
  N extends boolean = false,
>(spec: ComponentSpec, uses: U): AgentHandle<C, U, W, T, N> {
  const usedSpecs = Object.values(uses).map((handle) => handle.spec);
  return {
    ...defineComponent<C>(spec),
    uses,
    // A mistake in options or environment is one line naming the agent, as for a tool (startupError).
    serve: async (options) =>
      (await import("../../agent/index.js"))
        .serveAgent<C, T>(spec, usedSpecs, options)
        .catch((error: unknown) => Promise.reject(startupError(spec.name, error))),
    // Every call the agent's clients make names the agent (the scheduler's target_agent comes from it).
    clients: (options) => createUsesClients(uses, { agentName: spec.name, ...options }),
    workflows: (options) => createWorkflowClient<W, N>(spec, handleClientOptions(spec.name, options)),
    tasks: (options) => createTaskClient(spec, handleClientOptions(spec.name, options)) as AgentTaskClient<T>,
  };
}

export function defineComponent<C extends CapabilityTypes>(spec: ComponentSpec): ComponentHandle<C> {
  return {
    spec,
    serve: (options) => serveComponent<C>(spec, options),
    client: (options) => createClient<C>(spec, handleClientOptions(spec.name, options)),
  };
}

/**
 * The handle of a `kind: mcp` component: an external MCP server, called through typed methods, never
 * served. An agent that `uses` it calls it like any tool.
 */
export interface McpServerHandle<C extends CapabilityTypes> {
  readonly spec: ComponentSpec;
  client(options?: McpClientOptions): Client<C>;
}

export function defineMcpServer<C extends CapabilityTypes>(spec: ComponentSpec): McpServerHandle<C> {
  return { spec, client: (options) => createMcpClient(spec, options) as unknown as Client<C> };
}

/**
 * The handle of a `kind: a2a` component: a remote A2A agent whose skills are called through typed
 * methods (each follows the remote task to its end), never served. An agent that `uses` it calls it
 * like any tool.
 */
export interface A2aAgentHandle<C extends CapabilityTypes> {
  readonly spec: ComponentSpec;
  client(options?: A2aClientOptions): Client<C>;
}

export function defineA2aAgent<C extends CapabilityTypes>(spec: ComponentSpec): A2aAgentHandle<C> {
  return { spec, client: (options) => createA2aClient(spec, options) as unknown as Client<C> };
}
