/**
 * The scenario tools as real components on 127.0.0.1, each behind an observer: the suites' HTTP relay
 * (test/support/relay.ts), which sees every capability call the orchestrator dispatches; the body is checked against the
 * capability's own input schema (independently of the component, which checks it too and answers
 * 400), records it, and relays it. A dispatch the schema refuses is an INVALID dispatch: the thing
 * natural mode promises never to send.
 */
import { startRelay, type Dispatch as RelayedCall, type Relay } from "../../test/support/relay.js";
import { compileValidator, serveComponent, type InputValidator, type RunningComponent } from "../../runtime/component/index.js";
import { objectSchema } from "../../runtime/spec/index.js";
import type { ComponentSpec } from "../../runtime/spec/types.js";
import { TOOLS } from "./tools/index.js";

export interface Dispatch {
  readonly tool: string;
  readonly capability: string;
  readonly params: Record<string, unknown>;
  /** Whether the body fits the capability's input schema. */
  readonly valid: boolean;
  /** The component's answer. */
  readonly status: number;
  readonly output: unknown;
}

export interface ObservedTools {
  readonly specs: readonly ComponentSpec[];
  /** Component name → the observer's base URL (what the orchestrator calls). */
  readonly baseUrls: Readonly<Record<string, string>>;
  /** Every capability call answered since the last `reset`, in arrival order. */
  readonly dispatches: readonly Dispatch[];
  reset(): void;
  close(): Promise<void>;
}

/** Each capability's own input check, compiled from its spec (not the component's: an independent judge). */
function validatorsOf(specs: readonly ComponentSpec[]): Map<string, InputValidator> {
  const validators = new Map<string, InputValidator>();
  for (const spec of specs)
    for (const c of spec.capabilities)
      validators.set(`${spec.name}.${c.name}`, compileValidator(objectSchema(c.input ?? { required: [], optional: [] }, "draft-07")));
  return validators;
}

/** A relayed call as the bench judges it. */
function dispatchOf(call: RelayedCall, validators: ReadonlyMap<string, InputValidator>): Dispatch {
  const params = call.body as Record<string, unknown>;
  const validate = validators.get(`${call.component}.${call.capability}`);
  return {
    tool: call.component,
    capability: call.capability,
    params,
    valid: validate !== undefined && validate(params) === undefined,
    status: call.status ?? 0,
    output: call.output,
  };
}

/** Serves every tool of TOOLS (or those named) with its observer. */
export async function startObservedTools(names: readonly string[] = Object.keys(TOOLS)): Promise<ObservedTools> {
  const calls: RelayedCall[] = [];
  const running: RunningComponent[] = [];
  const relays: Relay[] = [];
  const baseUrls: Record<string, string> = {};
  const specs = names.map((name) => {
    const tool = TOOLS[name];
    if (tool === undefined) throw new Error(`no bench tool ${name}`);
    return tool.spec;
  });
  const validators = validatorsOf(specs);
  for (const spec of specs) {
    const component = await serveComponent(spec, {
      port: 0,
      handlers: TOOLS[spec.name]!.handlers as never,
      registry: false,
      handleSignals: false,
      log: () => undefined,
      drainTimeoutMs: 200,
    });
    running.push(component);
    const relay = await startRelay(spec, component.url, calls);
    relays.push(relay);
    baseUrls[spec.name] = relay.url;
  }
  return {
    specs,
    baseUrls,
    get dispatches() {
      return calls.filter((call) => call.status !== undefined).map((call) => dispatchOf(call, validators));
    },
    reset: () => void calls.splice(0),
    close: async () => {
      await Promise.all(relays.map((r) => r.close()));
      await Promise.all(running.map((r) => r.close()));
    },
  };
}
