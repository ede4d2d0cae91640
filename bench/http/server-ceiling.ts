/**
 * The cheapest node:http servers that answer bench:http's capability POST correctly (read the body,
 * JSON.parse, ajv validation, JSON answer with Content-Type and Content-Length), and its GET with a
 * path parameter as bare node:http does, one variant per process, chosen by CEILING_VARIANT (a
 * comma-separated list of the switches below). ceiling.ts
 * loads them in turn and compares their CPU per request with fastify's.
 *
 *   flat      res.writeHead(status, [name, value, ...]) instead of writeHead(status, {object})
 *   set       res.statusCode + setHeader per header instead of writeHead
 *   forawait  the body read with for await instead of 'data'/'end' listeners
 *   buffer    res.end(Buffer) instead of res.end(string)
 *   length    Content-Length precomputed: the answer is built as a Buffer once, its length read
 *   nodate    server.sendDate = false (no Date header: a behaviour change, measured only to know its price)
 *   opts      createServer({ requireHostHeader: false, joinDuplicateHeaders: false, highWaterMark: 65536, noDelay: true })
 *   hwm       createServer({ highWaterMark: 65536 }) alone;  nohost: createServer({ requireHostHeader: false }) alone
 *   ka0       keepAliveTimeout = 0 (no idle timer re-armed per response: a behaviour change, measured only)
 *   one       the body's single chunk parsed without Buffer.concat
 *   als       the answer made inside AsyncLocalStorage.run (what a request scope costs: on Node 20 a
 *             store once run enables an async_hooks init hook and promise hooks for the whole process)
 *   own       the same through a scope of our own on async_hooks that writes nothing onto resources made outside
 *             a scope (measured: the hook's dispatch, not its store, is the cost; docs/decisions.md)
 *   id        a request id header on the answer, made by the runtime's own freshRequestId, in the same
 *             writeHead as the others as the runtime writes it (with `set`, through setHeader)
 *   last      answered at the body's last byte (Content-Length reached) and the request paused, with no
 *             'end' listener: node then neither ends, destroys nor closes the request (the runtime's raw route)
 */
import "./probe.js";
import { AsyncLocalStorage, createHook, executionAsyncResource } from "node:async_hooks";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv } from "ajv";
import { freshRequestId } from "../../runtime/context/ids.js";
import { announce, inputSchema, item, itemIdOf, PATH, quote, type QuoteInput } from "./spec.js";

const on = new Set((process.env["CEILING_VARIANT"] ?? "").split(",").filter((name) => name !== ""));
// Every switch read once here, not per request: nine Set lookups per request added about 5k
// instructions per POST to every variant (callgrind), which is what the variants are compared by.
const ALS = on.has("als");
const OWN = on.has("own");
const ID = on.has("id");
const BUFFER = on.has("buffer") || on.has("length");
const SET = on.has("set");
const FLAT = on.has("flat");
const FORAWAIT = on.has("forawait");
const ONE = on.has("one");
const LAST = on.has("last");
const NODATE = on.has("nodate");
const validate = new Ajv({ allErrors: true }).compile<QuoteInput>(inputSchema);
const TYPE = "application/json; charset=utf-8";

const storage = new AsyncLocalStorage<{ readonly id: string }>();

const kScope = Symbol("scope");
let ownOn = false;
type Slot = Record<symbol, unknown>;
function ownRun<A, R>(store: unknown, fn: (arg: A) => R, arg: A): R {
  if (!ownOn) {
    ownOn = true;
    createHook({
      init(_id, _type, _trigger, resource) {
        const scope = (executionAsyncResource() as Slot)[kScope];
        if (scope !== undefined || (resource as Slot)[kScope] !== undefined) (resource as Slot)[kScope] = scope;
      },
    }).enable();
  }
  const current = executionAsyncResource() as Slot;
  const prev = current[kScope];
  current[kScope] = store;
  try {
    return fn(arg);
  } finally {
    current[kScope] = prev;
  }
}

/** The answer made inside the switched-on request scope (`als` or `own`), else directly. */
function inScope<A, R>(fn: (arg: A) => R, arg: A): R {
  return ALS ? storage.run({ id: "x" }, fn, arg) : OWN ? ownRun({ id: "x" }, fn, arg) : fn(arg);
}

const REQUEST_ID = "X-Manifold-Request-ID";

function reply(res: ServerResponse, status: number, text: string): void {
  const body: string | Buffer = BUFFER ? Buffer.from(text) : text;
  const length = typeof body === "string" ? Buffer.byteLength(body) : body.length;
  if (SET) {
    if (ID) res.setHeader(REQUEST_ID, freshRequestId());
    res.statusCode = status;
    res.setHeader("Content-Type", TYPE);
    res.setHeader("Content-Length", length);
  } else if (FLAT) {
    const headers = ["Content-Type", TYPE, "Content-Length", String(length)];
    res.writeHead(status, ID ? [REQUEST_ID, freshRequestId(), ...headers] : headers);
  } else {
    const headers = { "Content-Type": TYPE, "Content-Length": length };
    res.writeHead(status, ID ? { [REQUEST_ID]: freshRequestId(), ...headers } : headers);
  }
  res.end(body);
}

function answer(res: ServerResponse, bytes: Buffer): void {
  let input: unknown;
  try {
    input = JSON.parse(bytes.toString("utf8"));
  } catch {
    return reply(res, 400, '{"error":"invalid json"}');
  }
  if (!validate(input)) return reply(res, 400, JSON.stringify({ error: validate.errors }));
  reply(res, 200, JSON.stringify(inScope(quote, input)));
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function onRequest(req: IncomingMessage, res: ServerResponse): void {
  if (NODATE) res.sendDate = false;
  const url = req.url ?? "/";
  // The GET takes the same switches (scope, id, headers); once a POST ran a scope, the hook taxes it too.
  const id = req.method === "GET" ? itemIdOf(url) : undefined;
  if (id !== undefined) return reply(res, 200, JSON.stringify(inScope(item, id)));
  if (req.method !== "POST" || url !== PATH) return reply(res, 404, '{"error":"not found"}');
  if (FORAWAIT) {
    void readAll(req).then((bytes) => answer(res, bytes));
    return;
  }
  if (ONE) {
    let first: Buffer | undefined;
    let rest: Buffer[] | undefined;
    req.on("data", (chunk: Buffer) => {
      if (first === undefined) first = chunk;
      else (rest ??= [first]).push(chunk);
    });
    req.on("end", () => answer(res, rest === undefined ? (first ?? Buffer.alloc(0)) : Buffer.concat(rest)));
    return;
  }
  const chunks: Buffer[] = [];
  if (LAST) {
    const expected = Number(req.headers["content-length"]);
    let received = 0;
    req.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received !== expected) return;
      req.pause();
      answer(res, Buffer.concat(chunks));
    });
    return;
  }
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => answer(res, Buffer.concat(chunks)));
}

const server = on.has("opts")
  ? createServer({ requireHostHeader: false, joinDuplicateHeaders: false, highWaterMark: 65536, noDelay: true }, onRequest)
  : on.has("hwm")
    ? createServer({ highWaterMark: 65536 }, onRequest)
    : on.has("nohost")
      ? createServer({ requireHostHeader: false }, onRequest)
      : createServer(onRequest);
if (on.has("ka0")) server.keepAliveTimeout = 0;
server.listen(0, "127.0.0.1", () => announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
