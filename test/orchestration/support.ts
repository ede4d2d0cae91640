/**
 * Real tools on loopback for the orchestration suites: small components served with serveComponent
 * (no registry unless a test gives one), whose handlers record when each call started and ended so
 * that scheduling can be asserted from what the tools saw.
 */
import { serveComponent } from "../../runtime/component/index.js";
import type { ComponentOptions, RunningComponent } from "../../runtime/component/index.js";
import type { Registry } from "../../runtime/discovery/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createOrchestrationExtension, type OrchestrationExtension, type OrchestrationOptions } from "../../runtime/orchestration/index.js";
import type { CapabilitySpec, ComponentSpec, FieldsSpec, WorkflowSpec } from "../../runtime/spec/types.js";
import type { Logger } from "../../runtime/telemetry/index.js";

export function capability(name: string, input?: FieldsSpec, output?: FieldsSpec): CapabilitySpec {
  const key = name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return {
    name,
    key,
    description: name,
    type: "tool",
    internal: false,
    endpoint: `/api/capabilities/${name}`,
    ...(input === undefined ? {} : { input }),
    ...(output === undefined ? {} : { output }),
  };
}

export interface Call {
  readonly tool: string;
  readonly capability: string;
  readonly input: Record<string, unknown>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly start: number;
  end: number | undefined;
  aborted: boolean;
}

export interface Tools {
  readonly calls: Call[];
  readonly running: RunningComponent[];
  /** Name → base URL. */
  readonly baseUrls: Record<string, string>;
  readonly specs: ComponentSpec[];
  /** How many calls are in flight right now, and the most ever seen at once. */
  readonly inFlight: { now: number; max: number };
  close(): Promise<void>;
}

const NUM = (name: string) => ({ name, type: "number" as const });
const STR = (name: string) => ({ name, type: "string" as const });

/**
 * `worker` (and `worker-b`, same capabilities):
 * - `sleep {ms, tag?, until_tag?}` → `{slept, tag}` after ms (aborts with the client); with `until_tag`,
 *   as soon as a call with that tag has ended (`released_by: "tag"`), `ms` being only a cap (`"time"`);
 * - `echo {…}` → the input, as is;
 * - `add {a, b}` → `{sum}`;
 * - `fail {code?}` → throws HANDLER_ERROR (or UNAVAILABLE when `code: "UNAVAILABLE"`);
 * - `flaky {key, failures}` → UNAVAILABLE for the first `failures` calls with that key, then `{ok, attempt}`;
 * - `headers {}` → the request's headers.
 */
export async function startTools({ names = ["worker"], registry = false as Registry | false } = {}): Promise<Tools> {
  const calls: Call[] = [];
  const inFlight = { now: 0, max: 0 };
  const flaky = new Map<string, number>();
  const running: RunningComponent[] = [];
  const specs: ComponentSpec[] = [];
  for (const name of names) {
    const spec: ComponentSpec = {
      kind: "tool",
      name,
      description: `test tool ${name}`,
      version: "1.0.0",
      capabilities: [
        capability(
          "sleep",
          { required: [NUM("ms")], optional: [STR("tag"), STR("until_tag")] },
          { required: [NUM("slept")], optional: [STR("tag"), STR("released_by")] },
        ),
        capability("echo"),
        capability("add", { required: [NUM("a"), NUM("b")], optional: [] }, { required: [NUM("sum")], optional: [] }),
        capability("fail", { required: [], optional: [STR("code")] }),
        capability(
          "flaky",
          { required: [STR("key"), NUM("failures")], optional: [] },
          { required: [{ name: "ok", type: "boolean" }, NUM("attempt")], optional: [] },
        ),
        capability("headers"),
      ],
    };
    const track = <T>(
      capabilityName: string,
      input: Record<string, unknown>,
      headers: Call["headers"],
      signal: AbortSignal,
      work: () => Promise<T> | T,
    ): Promise<T> => {
      const call: Call = { tool: name, capability: capabilityName, input, headers, start: performance.now(), end: undefined, aborted: false };
      calls.push(call);
      inFlight.now += 1;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      signal.addEventListener("abort", () => (call.aborted = true), { once: true });
      return Promise.resolve()
        .then(work)
        .finally(() => {
          call.end = performance.now();
          inFlight.now -= 1;
          for (const wake of [...ended]) wake();
        });
    };
    /** Sleeps waiting for another call to end (`until_tag`), woken whenever a call ends. */
    const ended = new Set<() => void>();
    const hasEnded = (tag: unknown): boolean => calls.some((c) => c.input["tag"] === tag && c.end !== undefined);
    type In = Record<string, unknown>;
    const handlers: ComponentOptions<Record<string, { input: In; output: unknown }>>["handlers"] = {
      sleep: (input, ctx) =>
        track(
          "sleep",
          input,
          ctx.headers,
          ctx.signal,
          () =>
            new Promise((resolve, reject) => {
              const until = input["until_tag"];
              const finish = (releasedBy: string): void => {
                clearTimeout(timer);
                ended.delete(check);
                const release = until === undefined ? {} : { released_by: releasedBy };
                resolve({ slept: input["ms"], ...(input["tag"] === undefined ? {} : { tag: input["tag"] }), ...release });
              };
              const check = (): void => {
                if (hasEnded(until)) finish("tag");
              };
              const timer = setTimeout(() => finish("time"), Number(input["ms"]));
              if (until !== undefined) {
                ended.add(check);
                check();
              }
              ctx.signal.addEventListener(
                "abort",
                () => {
                  clearTimeout(timer);
                  ended.delete(check);
                  reject(new ManifoldError("ABORTED", "client went away"));
                },
                { once: true },
              );
            }),
        ),
      echo: (input, ctx) => track("echo", input, ctx.headers, ctx.signal, () => input),
      add: (input, ctx) => track("add", input, ctx.headers, ctx.signal, () => ({ sum: Number(input["a"]) + Number(input["b"]) })),
      fail: (input, ctx) =>
        track("fail", input, ctx.headers, ctx.signal, () => {
          throw input["code"] === "UNAVAILABLE" ? new ManifoldError("UNAVAILABLE", "scripted outage") : new ManifoldError("HANDLER_ERROR", "scripted failure");
        }),
      flaky: (input, ctx) =>
        track("flaky", input, ctx.headers, ctx.signal, () => {
          const key = String(input["key"]);
          const attempt = (flaky.get(key) ?? 0) + 1;
          flaky.set(key, attempt);
          if (attempt <= Number(input["failures"])) throw new ManifoldError("UNAVAILABLE", `flaky ${key} attempt ${attempt}`);
          return { ok: true, attempt };
        }),
      headers: (input, ctx) => track("headers", input, ctx.headers, ctx.signal, () => ({ headers: ctx.headers })),
    };
    running.push(await serveComponent(spec, { port: 0, handlers, registry, handleSignals: false, log: () => undefined, drainTimeoutMs: 200 }));
    specs.push(spec);
  }
  return {
    calls,
    running,
    specs,
    inFlight,
    baseUrls: Object.fromEntries(running.map((r) => [r.spec.name, r.url])),
    close: async () => {
      await Promise.all(running.map((r) => r.close()));
    },
  };
}

/** A log that keeps its lines, for asserting what hooks and records report. */
export function memoryLog(): { lines: string[]; log: Logger } {
  const lines: string[] = [];
  const push =
    (level: string) =>
    (message: string): void =>
      void lines.push(`${level} ${message}`);
  const log = Object.assign(push("info"), { debug: push("debug"), info: push("info"), warn: push("warn"), error: push("error") }) as Logger;
  return { lines, log };
}

export { rejection } from "../support/errors.js";

/** An agent spec with the orchestration features a test needs and no capabilities of its own. */
export function agentSpec(
  name: string,
  options: { custom?: boolean; workflows?: WorkflowSpec[]; endpoints?: string[]; natural?: boolean } = {},
): ComponentSpec {
  const { custom = false, workflows = [], natural = false } = options;
  const endpoints = options.endpoints ?? workflows.map((w) => w.name);
  return {
    kind: "agent",
    name,
    description: `test agent ${name}`,
    version: "1.0.0",
    capabilities: [],
    agent: { uses: [], orchestration: { custom, workflows, endpoints, ...(natural ? { natural: { model: "test-model" } } : {}) }, tasks: [] },
  };
}

/** Serves `spec` with the orchestration extension on a free port, outside any registry. */
export async function serveAgent(
  spec: ComponentSpec,
  options: OrchestrationOptions,
): Promise<{
  running: RunningComponent;
  extension: OrchestrationExtension;
  post: (path: string, body: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;
}> {
  const extension = createOrchestrationExtension(spec, { executionStore: false, registry: false, log: memoryLog().log, ...options });
  const running = await serveComponent(spec, {
    port: 0,
    handlers: {},
    registry: false,
    handleSignals: false,
    log: () => undefined,
    extensions: [extension],
    drainTimeoutMs: 500,
  });
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(running.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
  };
  return { running, extension, post };
}

/** A workflow spec step on the `worker` tool. */
export function workflowStep(
  name: string,
  capabilityName: string,
  inputs: Record<string, unknown>,
  more: Partial<WorkflowSpec["steps"][number]> = {},
): WorkflowSpec["steps"][number] {
  return { name, component: "worker", componentKind: "tool", capability: capabilityName, inputs, dependsOn: [], retry: 0, onError: "fail", ...more };
}

/** A step as a language model writes it in a plan (snake_case, templates in the parameters). */
export function planStep(step_id: string, agent_name: string, capability: string, parameters: Record<string, unknown>, depends_on: string[] = []) {
  return { step_id, agent_name, depends_on, metadata: { capability, parameters } };
}

/** A plan answer's text: `{"steps": [...]}`. */
export const planText = (steps: unknown[]): string => JSON.stringify({ steps });
