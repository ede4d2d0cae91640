/**
 * The context a route handler gets: the part of Koa's context Manifold's routes use (params, query,
 * headers, status, body, set/get/remove, respond), with Koa's semantics for each, on one small object
 * per request instead of Koa's three (context, request, response) and its middleware chain. Headers
 * go straight to the node response with setHeader, as Koa's do, so a route that takes the response
 * over (an SSE stream, MCP) keeps what was set before, and the bytes on the wire are Koa's.
 */
import { STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { parse as parseQuery, type ParsedUrlQuery } from "node:querystring";

/** Statuses whose response has no body (Koa's `statuses.empty`). */
const EMPTY_STATUS = new Set([204, 205, 304]);
const TEXT_TYPE = "text/plain; charset=utf-8";
const HTML_TYPE = "text/html; charset=utf-8";
const BINARY_TYPE = "application/octet-stream";
const JSON_TYPE = "application/json; charset=utf-8";
const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

export class RouteContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** The request path without its query (`/api/v1/tasks/t-1`), not decoded. */
  readonly path: string;
  /** The named parameters of the route's path (`/api/v1/tasks/:task_id`), URI-decoded. */
  params: Record<string, string>;
  /** False once a route has taken the response over and writes it itself (an event stream). */
  respond = true;
  #status = 404;
  #explicitStatus = false;
  #body: unknown = undefined;
  #query: ParsedUrlQuery | undefined;
  #state: Record<string, unknown> | undefined;
  /** May a JSON answer's headers wait for respond() and go out in one writeHead (see `json`)? */
  readonly #defer: boolean;
  /** A JSON body given by `json` whose Content-Type and Content-Length are not on the node response yet. */
  #pending: string | undefined;

  /**
   * `deferHeaders`: no one outside the route reads the node response's headers before it is written
   * (no Koa middleware around the route), so a JSON answer may keep its two headers until respond().
   */
  constructor(req: IncomingMessage, res: ServerResponse, path: string, params: Record<string, string> | undefined, deferHeaders = false) {
    this.req = req;
    this.res = res;
    this.path = path;
    this.params = params ?? NO_PARAMS;
    this.#defer = deferHeaders;
  }

  /**
   * A pre-serialised JSON answer: what `status = …`, `set("Content-Type", JSON)` and `body = …` do,
   * except that, when deferring, the two headers are held here and written with the status in one
   * `writeHead` by respond() (node's setHeader validates and stores each header, a measurable share of
   * a small GET). Anything that touches the response's headers afterwards puts them on it first, so
   * every later step sees what it saw before.
   */
  json(status: number, body: string): void {
    if (!this.#defer || this.res.headersSent) {
      this.status = status;
      this.set("Content-Type", JSON_TYPE);
      this.body = body;
      return;
    }
    this.#materialise();
    this.status = status;
    this.#body = body;
    this.#pending = body;
  }

  /** Puts a deferred JSON answer's headers on the node response, as `json` would have without deferring. */
  #materialise(): void {
    const body = this.#pending;
    if (body === undefined) return;
    this.#pending = undefined;
    this.res.setHeader("Content-Type", JSON_TYPE);
    if (!this.res.hasHeader("Transfer-Encoding")) this.res.setHeader("Content-Length", String(Buffer.byteLength(body)));
  }

  /** Writes a deferred JSON answer in one writeHead when nothing else was set; false: respond() goes the usual way. */
  writePending(): boolean {
    const body = this.#pending;
    if (body === undefined) return false;
    const { res } = this;
    if (res.headersSent || res.getHeaderNames().length > 0 || EMPTY_STATUS.has(this.#status) || this.req.method === "HEAD") {
      this.#materialise();
      return false;
    }
    this.#pending = undefined;
    res.writeHead(this.#status, ["Content-Type", JSON_TYPE, "Content-Length", String(Buffer.byteLength(body))]);
    res.end(body);
    return true;
  }

  get method(): string {
    return this.req.method ?? "GET";
  }

  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }

  /** The query string parsed once on first use (repeated names become arrays, as with Koa). */
  get query(): ParsedUrlQuery {
    if (this.#query === undefined) {
      const url = this.req.url ?? "";
      const mark = url.indexOf("?");
      this.#query = mark === -1 ? parseQuery("") : parseQuery(url.slice(mark + 1));
    }
    return this.#query;
  }

  /** The Host header (its first entry), `""` without one. */
  get host(): string {
    const host = this.req.headers.host;
    return host === undefined || host === "" ? "" : (host.split(/\s*,\s*/, 1)[0] ?? "");
  }

  /** Per-request scratch space for a route's own wrappers. */
  get state(): Record<string, unknown> {
    return (this.#state ??= {});
  }

  /** A request header by case-insensitive name, `""` when absent. */
  get(name: string): string {
    const lower = name.toLowerCase();
    const value = lower === "referer" || lower === "referrer" ? (this.req.headers.referrer ?? this.req.headers.referer) : this.req.headers[lower];
    return value === undefined ? "" : String(value);
  }

  /** Sets a response header; ignored once the headers are sent (Koa's rule). */
  set(name: string, value: string | number | readonly string[]): void {
    if (this.res.headersSent) return;
    this.#materialise();
    this.res.setHeader(name, Array.isArray(value) ? value.map(String) : String(value));
  }

  remove(name: string): void {
    if (this.res.headersSent) return;
    this.#materialise();
    this.res.removeHeader(name);
  }

  get status(): number {
    return this.#status;
  }

  set status(code: number) {
    if (this.res.headersSent) return;
    this.#materialise();
    this.#status = code;
    this.#explicitStatus = true;
    this.res.statusCode = code;
    if (EMPTY_STATUS.has(code) && this.#body != null) this.#body = null;
  }

  get body(): unknown {
    return this.#body;
  }

  /**
   * Koa's body setter: a value makes the status 200 unless one was set; a string or Buffer gets a
   * Content-Type when none is set and its Content-Length; anything else is sent as JSON.
   */
  set body(value: unknown) {
    this.#materialise();
    this.#body = value;
    if (value == null) {
      if (!EMPTY_STATUS.has(this.#status)) this.status = 204;
      this.remove("Content-Type");
      this.remove("Content-Length");
      this.remove("Transfer-Encoding");
      return;
    }
    if (!this.#explicitStatus) this.status = 200;
    const untyped = !this.res.hasHeader("Content-Type");
    if (typeof value === "string") {
      if (untyped) this.set("Content-Type", /^\s*</.test(value) ? HTML_TYPE : TEXT_TYPE);
      this.#length(Buffer.byteLength(value));
    } else if (Buffer.isBuffer(value)) {
      if (untyped) this.set("Content-Type", BINARY_TYPE);
      this.#length(value.length);
    } else {
      this.remove("Content-Length");
      this.set("Content-Type", JSON_TYPE);
    }
  }

  #length(length: number): void {
    if (!this.res.hasHeader("Transfer-Encoding")) this.set("Content-Length", length);
  }
}

/** Writes what the route left on its context, as Koa's respond() does (HEAD and empty statuses without a body). */
export function respond(ctx: RouteContext): void {
  if (!ctx.respond) return;
  const { res } = ctx;
  if (res.writableEnded || (res.socket !== null && !res.socket.writable)) return;
  if (ctx.writePending()) return;
  const status = ctx.status;
  res.statusCode = status;
  if (EMPTY_STATUS.has(status)) {
    res.end();
    return;
  }
  let body = ctx.body;
  if (ctx.req.method === "HEAD") {
    res.end();
    return;
  }
  if (body == null) {
    // A route that set nothing: Koa's plain-text status message.
    body = STATUS_CODES[status] ?? String(status);
    ctx.set("Content-Type", TEXT_TYPE);
    ctx.set("Content-Length", Buffer.byteLength(body as string));
    res.end(body);
    return;
  }
  if (typeof body === "string" || Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  const json = JSON.stringify(body);
  if (!res.headersSent) ctx.set("Content-Length", Buffer.byteLength(json));
  res.end(json);
}
