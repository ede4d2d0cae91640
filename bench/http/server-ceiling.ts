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
 *   id        a request id header on the answer, made by the runtime's own freshRequestId
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
const validate = new Ajv({ allErrors: true }).compile<QuoteInput>(inputSchema);
const TYPE = "application/json; charset=utf-8";

const storage = new AsyncLocalStorage<{ readonly id: string }>();
const withId = on.has("id");

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
  return on.has("als") ? storage.run({ id: "x" }, fn, arg) : on.has("own") ? ownRun({ id: "x" }, fn, arg) : fn(arg);
}

function reply(res: ServerResponse, status: number, text: string): void {
  if (withId) res.setHeader("X-Manifold-Request-ID", freshRequestId());
  const body: string | Buffer = on.has("buffer") || on.has("length") ? Buffer.from(text) : text;
  const length = typeof body === "string" ? Buffer.byteLength(body) : body.length;
  if (on.has("set")) {
    res.statusCode = status;
    res.setHeader("Content-Type", TYPE);
    res.setHeader("Content-Length", length);
  } else if (on.has("flat")) res.writeHead(status, ["Content-Type", TYPE, "Content-Length", String(length)]);
  else res.writeHead(status, { "Content-Type": TYPE, "Content-Length": length });
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

const noDate = on.has("nodate");

function onRequest(req: IncomingMessage, res: ServerResponse): void {
  if (noDate) res.sendDate = false;
  const url = req.url ?? "/";
  // The GET takes the same switches (scope, id, headers); once a POST ran a scope, the hook taxes it too.
  const id = req.method === "GET" ? itemIdOf(url) : undefined;
  if (id !== undefined) return reply(res, 200, JSON.stringify(inScope(item, id)));
  if (req.method !== "POST" || url !== PATH) return reply(res, 404, '{"error":"not found"}');
  if (on.has("forawait")) {
    void readAll(req).then((bytes) => answer(res, bytes));
    return;
  }
  if (on.has("one")) {
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
  if (on.has("last")) {
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
