/**
 * The handlers of a tool imported from an OpenAPI document (`manifold import openapi`): each capability
 * forwarded to the existing service as the HTTP call its operation describes, through the outbound
 * caller (the configured or forwarded token, propagated headers, request ids, trace context). What an
 * operation takes and where each input field goes is the import's sidecar (`<name>.proxy.json`), data
 * only: the emitted module stays a few lines and the behaviour lives here.
 */
import { registerSecret } from "../context/index.js";
import { ManifoldError } from "../errors/index.js";
import { toCamelCase } from "../spec/index.js";
import { createCaller, type Caller, type CallerOptions } from "./caller.js";
import type { HttpMethod } from "./transport.js";

/** Where one input field goes: a path, query or header parameter, or a member of the JSON body. */
export interface ProxyParameter {
  readonly field: string;
  readonly in: "path" | "query" | "header" | "body";
  /** The name on the wire (the parameter's, or the body member's). */
  readonly name: string;
}

export interface ProxyOperation {
  readonly capability: string;
  readonly method: HttpMethod;
  /** The path template, `{name}` for path parameters. */
  readonly path: string;
  readonly parameters: readonly ProxyParameter[];
  /** The input field that is the whole JSON body (a body that is not an object with named members). */
  readonly bodyField?: string | undefined;
  /** The output field the answer is wrapped in (an answer that is not an object with named members). */
  readonly resultField?: string | undefined;
  /** The credentials (names in `ProxySpec.credentials`) this operation sends. @defaultValue none */
  readonly credentials?: readonly string[] | undefined;
}

/**
 * A credential the service wants, read from an environment variable at each call (so a rotated secret
 * is picked up): `bearer` goes as `Authorization: Bearer …` (winning over the caller's own token),
 * `header` under its header name (an input field sending that header wins). Unset or empty: not sent.
 */
export interface ProxyCredential {
  readonly type: "bearer" | "header";
  /** The header, for `header`. */
  readonly header?: string | undefined;
  /** The environment variable holding the secret; the secret is never in the sidecar. */
  readonly env: string;
}

/** The sidecar an import writes beside the manifest. */
export interface ProxySpec {
  readonly version: 1;
  /** The service's base URL from the document (`servers[0]`, or Swagger's host and basePath), if absolute. */
  readonly baseUrl?: string | undefined;
  readonly operations: readonly ProxyOperation[];
  /** The credentials operations send, by the document's security scheme names. @defaultValue none */
  readonly credentials?: Readonly<Record<string, ProxyCredential>> | undefined;
}

export interface OpenApiProxyOptions extends CallerOptions {
  /** Where the service is; wins over the document's. @defaultValue `spec.baseUrl` */
  readonly baseUrl?: string | undefined;
  /** @defaultValue a caller made from these options */
  readonly caller?: Caller | undefined;
}

/** The bearer token and headers an operation's credentials add, from `env` now. */
function credentialsOf(spec: ProxySpec, operation: ProxyOperation, env: NodeJS.ProcessEnv, headers: Record<string, string>): string | undefined {
  let token: string | undefined;
  for (const name of operation.credentials ?? []) {
    const credential = spec.credentials?.[name];
    const value = credential === undefined ? undefined : env[credential.env];
    if (credential === undefined || value === undefined || value === "") continue;
    registerSecret(value); // redacted wherever a log line would quote it
    if (credential.type === "bearer") token = value;
    else if (credential.header !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === credential.header!.toLowerCase()))
      headers[credential.header] = value;
  }
  return token;
}

export type ProxyHandler = (input: Readonly<Record<string, unknown>>) => Promise<unknown>;

/** A query or header value as text: arrays repeat (query) or join with commas (header); objects as JSON. */
function text(value: unknown): string {
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

function urlOf(base: string, operation: ProxyOperation, input: Readonly<Record<string, unknown>>): string {
  let path = operation.path;
  const query = new URLSearchParams();
  for (const { field, in: where, name } of operation.parameters) {
    const value = input[field];
    if (value === undefined || value === null) continue;
    // Encoded so a value can never add a segment, a query or a fragment to the path.
    if (where === "path") path = path.split(`{${name}}`).join(encodeURIComponent(text(value)));
    if (where === "query") for (const each of Array.isArray(value) ? value : [value]) query.append(name, text(each));
  }
  if (/\{[^}]*\}/.test(path)) throw new ManifoldError("INVALID_INPUT", `${operation.capability}: a path parameter has no value`);
  const search = query.toString();
  return `${base}${path}${search === "" ? "" : `?${search}`}`;
}

function headersOf(operation: ProxyOperation, input: Readonly<Record<string, unknown>>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { field, in: where, name } of operation.parameters) {
    const value = input[field];
    if (where === "header" && value !== undefined && value !== null) headers[name] = Array.isArray(value) ? value.map(text).join(",") : text(value);
  }
  return headers;
}

function bodyOf(operation: ProxyOperation, input: Readonly<Record<string, unknown>>): unknown {
  if (operation.bodyField !== undefined) return input[operation.bodyField];
  const members = operation.parameters.filter((p) => p.in === "body");
  if (members.length === 0) return undefined;
  const body: Record<string, unknown> = {};
  for (const { field, name } of members) if (input[field] !== undefined) body[name] = input[field];
  return body;
}

function checkBase(baseUrl: string | undefined): string {
  if (baseUrl === undefined || !/^https?:\/\//i.test(baseUrl)) {
    throw new RangeError(`the imported service's base URL must be an absolute http(s) URL (baseUrl or <NAME>_BASE_URL), not ${JSON.stringify(baseUrl ?? "")}`);
  }
  return baseUrl.replace(/\/+$/, "");
}

/**
 * The handlers (keyed by the camelCase capability names, as `serveManifest` and the generated
 * `serve()` take them) that forward each capability to the service at `baseUrl`, with the credentials
 * its operation names read from `options.env` (default `process.env`). A non-2xx answer is
 * the ManifoldError its status maps to; an answer wrapped by the import is returned as `{ <resultField>: … }`.
 */
export function createOpenApiProxy(spec: ProxySpec, options: OpenApiProxyOptions = {}): Record<string, ProxyHandler> {
  const { baseUrl = spec.baseUrl, caller: given, ...callerOptions } = options;
  const env = options.env ?? process.env;
  const base = checkBase(baseUrl);
  const caller = given ?? createCaller(callerOptions);
  const handlers: Record<string, ProxyHandler> = {};
  for (const operation of spec.operations) {
    handlers[toCamelCase(operation.capability)] = async (input) => {
      const headers = headersOf(operation, input);
      const token = credentialsOf(spec, operation, env, headers);
      const reply = await caller.call({
        url: urlOf(base, operation, input),
        method: operation.method,
        body: bodyOf(operation, input),
        headers,
        ...(token === undefined ? {} : { token }),
        name: operation.capability,
        foreign: true,
      });
      if (operation.resultField !== undefined) return reply === null ? {} : { [operation.resultField]: reply };
      return reply ?? {};
    };
  }
  return handlers;
}
