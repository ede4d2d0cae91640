import { randomUUID } from "node:crypto";
import { ManifoldError } from "../errors/index.js";
import type { ComponentSpec } from "../spec/types.js";
import type { CallOptions, CapabilityTypes, Client, ClientOptions } from "./types.js";

type Method = (input: unknown, options?: CallOptions) => Promise<unknown>;

/** RFC 9110 token, and a field value without control characters (CR/LF above all). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Header values will carry tokens, so no error here may quote one: fetch's own Headers would put an
 * invalid value into its message, hence this check in front of it, which names the header only.
 */
function mergeHeaders(target: Headers, source: Readonly<Record<string, string>> | undefined): void {
  if (source === undefined) return;
  for (const [name, value] of Object.entries(source)) {
    if (!HEADER_NAME.test(name) || typeof value !== "string" || !HEADER_VALUE.test(value)) {
      throw new ManifoldError("INVALID_INPUT", `header ${HEADER_NAME.test(name) ? name : "(invalid name)"} has an invalid name or value`);
    }
    target.set(name, value);
  }
}

/** The URL as it may appear in a message: without user info, query or fragment. */
function printable(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function parseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError("baseUrl is not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError("baseUrl must be http or https");
  return baseUrl.replace(/\/+$/, "");
}

function checkTimeout(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError("timeoutMs must be a non-negative number");
  return ms;
}

function errorCode(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return typeof code === "string" ? ` (${code})` : "";
}

/**
 * One async method per capability, keyed by the capability's `key`. The object has no prototype, so
 * a capability called `constructor` or `toString` is a method like any other.
 */
export function createClient<C extends CapabilityTypes>(
  spec: ComponentSpec,
  { baseUrl, timeoutMs = 30_000, headers }: ClientOptions,
): Client<C> {
  // A fixed URL is checked once, now; a resolved one on every call.
  const fixed = typeof baseUrl === "string" ? parseBaseUrl(baseUrl) : undefined;
  const baseOf = async (): Promise<string> => fixed ?? parseBaseUrl(await (baseUrl as () => string | Promise<string>)());
  const defaultTimeout = checkTimeout(timeoutMs);
  mergeHeaders(new Headers(), headers); // fail at creation, not on the first call
  const client = Object.create(null) as Record<string, Method>;

  for (const capability of spec.capabilities) {
    client[capability.key] = async (input, options = {}) => {
      const url = (await baseOf()) + capability.endpoint;
      const what = `${capability.name} (POST ${printable(new URL(url))})`;
      const { signal: callerSignal, timeoutMs: callTimeout = defaultTimeout } = options;
      const requestHeaders = new Headers();
      mergeHeaders(requestHeaders, headers);
      mergeHeaders(requestHeaders, options.headers);
      requestHeaders.set("content-type", "application/json");
      if (!requestHeaders.has("x-manifold-request-id")) requestHeaders.set("x-manifold-request-id", randomUUID());
      const body = JSON.stringify(input ?? {});

      const timeout = new AbortController();
      const limit = checkTimeout(callTimeout);
      const timer = setTimeout(() => timeout.abort(), limit);
      const signal = callerSignal === undefined ? timeout.signal : AbortSignal.any([callerSignal, timeout.signal]);
      let status: number;
      let ok: boolean;
      let text: string;
      try {
        const response = await fetch(url, { method: "POST", headers: requestHeaders, body, signal });
        ({ status, ok } = response);
        text = await response.text();
      } catch (error) {
        if (callerSignal?.aborted === true) throw new ManifoldError("ABORTED", `${what} was aborted by the caller`);
        if (timeout.signal.aborted) throw new ManifoldError("TIMEOUT", `${what} did not finish within ${limit} ms`);
        throw new ManifoldError("NETWORK_ERROR", `${what} failed: the component could not be reached${errorCode(error)}`, { cause: error });
      } finally {
        clearTimeout(timer);
      }

      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ManifoldError("INVALID_RESPONSE", `${what} answered ${status} with a body that is not JSON`);
      }
      if (ok) return parsed;
      throw ManifoldError.fromEnvelope(status, parsed)
        ?? new ManifoldError("INVALID_RESPONSE", `${what} answered ${status} without an error envelope`);
    };
  }
  return client as Client<C>;
}
