import { ManifoldError } from "../errors/index.js";
import { createCaller } from "../outbound/caller.js";
import { HEADER, bearerToken, checkHeader } from "../outbound/headers.js";
import type { ComponentSpec } from "../spec/types.js";
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

/**
 * One async method per capability, keyed by the capability's `key`, each a thin call into the one
 * outbound caller. The object has no prototype, so a capability called `constructor` or `toString`
 * is a method like any other.
 */
export function createClient<C extends CapabilityTypes>(
  spec: ComponentSpec,
  { baseUrl, timeoutMs = 30_000, headers, token, log }: ClientOptions,
): Client<C> {
  // A fixed URL is checked once, now; a resolved one on every call.
  const fixed = typeof baseUrl === "string" ? parseBaseUrl(baseUrl) : undefined;
  const baseOf = async (): Promise<string> => fixed ?? parseBaseUrl(await (baseUrl as () => string | Promise<string>)());
  const configured = splitHeaders(headers); // fails at creation, not on the first call
  const caller = createCaller({ timeoutMs, headers: configured.rest, token: token ?? configured.token, log });
  const client = Object.create(null) as Record<string, Method>;

  for (const capability of spec.capabilities) {
    client[capability.key] = async (input, options = {}) => {
      const url = (await baseOf()) + capability.endpoint;
      const perCall = splitHeaders(options.headers);
      return caller.call({
        url,
        body: input,
        name: capability.name,
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
  return client as Client<C>;
}
