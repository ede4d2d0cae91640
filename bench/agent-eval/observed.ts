/**
 * The scenario tools as real components on 127.0.0.1, each behind an observer: a small HTTP relay
 * that sees every capability call the orchestrator dispatches, checks the body against the
 * capability's own input schema (independently of the component, which checks it too and answers
 * 400), records it, and relays it. A dispatch the schema refuses is an INVALID dispatch: the thing
 * natural mode promises never to send.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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
  /** Every capability call since the last `reset`, in arrival order. */
  readonly dispatches: Dispatch[];
  reset(): void;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (part: Buffer) => {
      size += part.length;
      if (size > MAX_BODY) req.destroy(new Error("body too large"));
      else parts.push(part);
    });
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** The relay in front of one component: records capability calls, relays everything. */
async function startObserver(spec: ComponentSpec, upstream: string, dispatches: Dispatch[]): Promise<{ url: string; server: Server }> {
  const validators = new Map<string, { name: string; validate: InputValidator }>(
    spec.capabilities.map((c) => [
      c.endpoint,
      { name: c.name, validate: compileValidator(objectSchema(c.input ?? { required: [], optional: [] }, "draft-07")) },
    ]),
  );
  const server = createServer(async (req, res) => {
    try {
      const body = req.method === "POST" ? await readBody(req) : undefined;
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k, v]) => typeof v === "string" && !["host", "content-length", "connection"].includes(k)),
      ) as Record<string, string>;
      const answer = await fetch(upstream + req.url, { method: req.method ?? "GET", headers, ...(body === undefined ? {} : { body }) });
      const text = await answer.text();
      const capability = validators.get((req.url ?? "").split("?")[0]!);
      if (capability !== undefined && req.method === "POST") {
        const params = parse(body ?? "") as Record<string, unknown>;
        const valid = capability.validate(params) === undefined;
        dispatches.push({ tool: spec.name, capability: capability.name, params, valid, status: answer.status, output: parse(text) });
      }
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
      res.end(text);
    } catch (error) {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ success: false, error: { code: "UNAVAILABLE", message: (error as Error).message } }));
    }
  });
  return { url: await listen(server), server };
}

/** Serves every tool of TOOLS (or those named) with its observer. */
export async function startObservedTools(names: readonly string[] = Object.keys(TOOLS)): Promise<ObservedTools> {
  const dispatches: Dispatch[] = [];
  const running: RunningComponent[] = [];
  const servers: Server[] = [];
  const baseUrls: Record<string, string> = {};
  for (const name of names) {
    const tool = TOOLS[name];
    if (tool === undefined) throw new Error(`no bench tool ${name}`);
    const component = await serveComponent(tool.spec, {
      port: 0,
      handlers: tool.handlers as never,
      registry: false,
      handleSignals: false,
      log: () => undefined,
      drainTimeoutMs: 200,
    });
    running.push(component);
    const observer = await startObserver(tool.spec, component.url, dispatches);
    servers.push(observer.server);
    baseUrls[name] = observer.url;
  }
  return {
    specs: names.map((name) => TOOLS[name]!.spec),
    baseUrls,
    dispatches,
    reset: () => void dispatches.splice(0),
    close: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      await Promise.all(running.map((r) => r.close()));
    },
  };
}
