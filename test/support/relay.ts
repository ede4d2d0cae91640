/**
 * A counting relay in front of a component on loopback: every HTTP request that reaches one of its
 * capability endpoints is recorded (path, capability, parsed body) when it arrives, and its answer
 * (status, parsed output) once the component gives it. Handler-side records miss a call the component
 * refuses before its handler runs (a body that fails the input schema is answered 400 by the
 * component's own check), so "the tool never received it" is proved here, on the wire. The recovery
 * and micro-resolution suites and bench/agent-eval's observer use it.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ComponentSpec } from "../../runtime/spec/index.js";

export interface Dispatch {
  readonly component: string;
  readonly capability: string;
  readonly path: string;
  /** The request's body, parsed (the raw text when it is not JSON). */
  readonly body: unknown;
  /** The component's answer, once it came. */
  status?: number;
  output?: unknown;
}

export interface Relay {
  /** The relay's base URL: give it to the orchestrator instead of the component's. */
  readonly url: string;
  /** Every capability request that reached the relay, in arrival order. */
  readonly dispatches: Dispatch[];
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
    return text;
  }
};

/** Starts a relay on 127.0.0.1 in front of `upstream`, which serves `spec`; it records into `dispatches`. */
export async function startRelay(spec: ComponentSpec, upstream: string, dispatches: Dispatch[] = []): Promise<Relay> {
  const endpoints = new Map(spec.capabilities.map((c) => [c.endpoint, c.name]));
  const server: Server = createServer(async (req, res) => {
    try {
      const path = (req.url ?? "").split("?")[0]!;
      const text = req.method === "POST" || req.method === "PUT" ? await readBody(req) : undefined;
      const capability = endpoints.get(path);
      const call: Dispatch | undefined =
        capability === undefined ? undefined : { component: spec.name, capability, path, body: text === undefined ? undefined : parse(text) };
      if (call !== undefined) dispatches.push(call);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k, v]) => typeof v === "string" && !["host", "content-length", "connection"].includes(k)),
      ) as Record<string, string>;
      const answer = await fetch(upstream + req.url, { method: req.method ?? "GET", headers, ...(text === undefined ? {} : { body: text }) });
      const body = await answer.text();
      if (call !== undefined) {
        call.status = answer.status;
        call.output = parse(body);
      }
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
      res.end(body);
    } catch (error) {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ success: false, error: { code: "UNAVAILABLE", message: (error as Error).message } }));
    }
  });
  const url = await new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
  return {
    url,
    dispatches,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Relays in front of several components (name → base URL); `dispatches` of all of them, in arrival order. */
export async function startRelays(specs: readonly ComponentSpec[], upstreams: Readonly<Record<string, string>>) {
  const dispatches: Dispatch[] = [];
  const relays: Relay[] = [];
  const baseUrls: Record<string, string> = {};
  for (const spec of specs) {
    const upstream = upstreams[spec.name];
    if (upstream === undefined) continue;
    const relay = await startRelay(spec, upstream, dispatches);
    relays.push(relay);
    baseUrls[spec.name] = relay.url;
  }
  return { baseUrls, dispatches, close: async () => void (await Promise.all(relays.map((r) => r.close()))) };
}
