/**
 * The only entry point generated code imports. Its exports are versioned by this path: when the
 * shape generated code relies on changes, a `codegen/v2` appears and old generated code keeps linking.
 */
import { createClient, serveComponent } from "../../component/index.js";
import type { Client, CapabilityTypes, ClientOptions, ComponentOptions, RunningComponent } from "../../component/types.js";
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

export function defineComponent<C extends CapabilityTypes>(spec: ComponentSpec): ComponentHandle<C> {
  return {
    spec,
    serve: (options) => serveComponent<C>(spec, options),
    client: (options) => createClient<C>(spec, options),
  };
}
