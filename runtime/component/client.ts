import { ManifoldError } from "../errors/index.js";
import { createCaller } from "../outbound/index.js";
import { HEADER, bearerToken, checkHeader } from "../context/index.js";
import type { ComponentSpec } from "../spec/index.js";
import type { CallOptions, CapabilityTypes, Client, ClientOptions } from "./types.js";

type Method = (input: unknown, options?: CallOptions) => Promise<unknown>;

export function parseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError("baseUrl is not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError("baseUrl must be http or https");
  return baseUrl.replace(/\/+$/, "");
}

export interface SplitHeaders {
  readonly token: string | undefined;
  readonly requestId: string | undefined;
  readonly rest: Record<string, string>;
}

/**
 * `headers` of a client or a call are raw headers, so two of them keep the meaning they always had:
 * `Authorization: Bearer <t>` is the token `t` (configured, or per request), and
 * `X-Manifold-Request-ID` is the call's request id. Everything else is a propagated header, where
 * the caller skips reserved names. Other Authorization schemes are refused: the caller sends Bearer only.
 */
export function splitHeaders(headers: Readonly<Record<string, string>> | undefined): SplitHeaders {
  let token: string | undefined;
  let requestId: string | undefined;
  const rest: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === HEADER.AUTHORIZATION) {
      token = bearerToken(checkHeader(name, value));
      if (token === undefined) throw new ManifoldError("INVALID_INPUT", `header ${name} must be "Bearer <token>"; or pass the token as the token option`);
    } else if (lower === HEADER.REQUEST_ID) {
      requestId = checkHeader(name, value);
    } else {
      rest[name] = value;
    }
  }
  return { token, requestId, rest };
}

/** One request of a typed client, relative to the component's base URL. */
export interface ClientRequest {
  readonly path: string;
  /** @defaultValue "POST" */
  readonly method?: "GET" | "POST";
  readonly body: unknown;
  /** What is called, for messages, spans and metrics. */
  readonly name: string;
}

export type ClientSend = (request: ClientRequest, options?: CallOptions) => Promise<unknown>;

/**
 * What every typed client of a component shares (capabilities, workflows, tasks): the base URL
 * checked once when fixed (or on every call when resolved), configured headers split into token,
 * request id and propagated headers at creation (so a bad header fails now, not on the first call),
 * and one outbound caller.
 */
export function createClientSend(spec: ComponentSpec, { baseUrl, timeoutMs = 30_000, headers, token, log, agentName }: ClientOptions): ClientSend {
  const fixed = typeof baseUrl === "string" ? parseBaseUrl(baseUrl) : undefined;
  const baseOf = async (): Promise<string> => fixed ?? parseBaseUrl(await (baseUrl as () => string | Promise<string>)());
  const configured = splitHeaders(headers);
  const caller = createCaller({ timeoutMs, headers: configured.rest, token: token ?? configured.token, log, agentName });
  return async ({ path, method, body, name }, options = {}) => {
    const perCall = splitHeaders(options.headers);
    return caller.call({
      url: (await baseOf()) + path,
      ...(method === undefined ? {} : { method }),
      body,
      name,
      target: spec.name,
      token: options.token ?? perCall.token,
      headers: perCall.rest,
      requestId: options.requestId ?? perCall.requestId ?? configured.requestId,
      stepId: options.stepId,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
  };
}

/**
 * One async method per capability, keyed by the capability's `key`, each a thin call into the one
 * outbound caller. The object has no prototype, so a capability called `constructor` or `toString`
 * is a method like any other.
 */
export function createClient<C extends CapabilityTypes>(spec: ComponentSpec, options: ClientOptions): Client<C> {
  const send = createClientSend(spec, options);
  const client = Object.create(null) as Record<string, Method>;
  for (const capability of spec.capabilities) {
    client[capability.key] = (input, callOptions) => send({ path: capability.endpoint, body: input, name: capability.name }, callOptions);
  }
  return client as Client<C>;
}
