/**
 * A scripted OpenAI-compatible server on 127.0.0.1 for the language-model suites: the real `openai`
 * client talks to it over HTTP. `POST /v1/chat/completions` answers with the next scripted entry
 * (or what a script function returns), as one `chat.completion` or, when the request streams, as
 * SSE `chat.completion.chunk` lines ending with a usage chunk and `[DONE]`. Every request is kept
 * (`requests`, with its parsed body, lower-cased headers and arrival time) for assertions.
 *
 * `POST /v1/embeddings` answers deterministic vectors (scripted-embeddings.ts) unless a failure is
 * queued for it (`failEmbeddings`); its requests are kept apart (`embeddingRequests`), so the chat
 * suites' counts do not change.
 *
 * An unscripted request gets a 500 that says so, so a test that scripts too little fails loudly
 * (the client would retry it: tests that care set `maxRetries: 0`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { answerEmbeddings } from "./scripted-embeddings.js";
import { sleep } from "./wait.js";

export interface ScriptedAnswer {
  readonly text: string;
  /** @defaultValue words in the prompt and in the text */
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number };
  /** @defaultValue "stop" */
  readonly finish_reason?: string;
  /** Pieces a streamed answer is cut into. @defaultValue 3 */
  readonly chunks?: number;
  readonly delayMs?: number;
}

export interface ScriptedFailure {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Holds the request open, unanswered, until the server closes (timeouts, aborts). */
export interface ScriptedHang {
  readonly hang: true;
}

export type ScriptedEntry = ScriptedAnswer | ScriptedFailure | ScriptedHang;
export type ScriptFunction = (body: any, index: number) => ScriptedEntry;
/** What a test answers to one kind of request; undefined leaves it unscripted. */
export type Answerer = (body: any, index: number) => ScriptedEntry | undefined;

/** The json_schema name of a request (`routing_plan`, `capability_selection`, …), or "text" (synthesis has none). */
export const schemaKind = (body: any): string => body.response_format?.json_schema?.name ?? "text";

/**
 * A script answering each request from the table `answers()` returns (read per request, so a test may
 * replace it whole) under the request's kind. A kind the test did not script is a 500 naming it, so
 * the test fails loudly (clients under test set `maxRetries: 0`).
 */
export function scriptByKind(answers: () => Readonly<Record<string, Answerer>>, kindOf: (body: any) => string = schemaKind): ScriptFunction {
  return (body, index) => answers()[kindOf(body)]?.(body, index) ?? { status: 500, body: { error: { message: `no scripted answer to ${kindOf(body)}` } } };
}

export interface ScriptedRequest {
  readonly body: any;
  readonly headers: Readonly<Record<string, string>>;
  /** performance.now() at arrival. */
  readonly at: number;
  /** Whether the client closed the connection before the answer was written (an aborted call). */
  readonly aborted: boolean;
}

export interface ScriptedLlm {
  /** `http://127.0.0.1:<port>/v1`: what `baseURL` / `MANIFOLD_LLM_BASE_URL` take. */
  readonly baseUrl: string;
  readonly requests: ScriptedRequest[];
  /** Queues entries, answered in order. */
  reply(...entries: ScriptedEntry[]): void;
  /** Every `POST /v1/embeddings` request, in arrival order. */
  readonly embeddingRequests: ScriptedRequest[];
  /** Queues failures (or hangs) for the next embeddings requests; an embeddings request with none queued is answered. */
  failEmbeddings(...entries: (ScriptedFailure | ScriptedHang)[]): void;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    let size = 0;
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => {
      size += part.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.destroy();
        return;
      }
      parts.push(part);
    });
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", () => resolve(undefined));
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/**
 * One request read and kept in `into` (marked aborted if the client leaves before its answer ends);
 * a body too large or not JSON is answered here (413, 400) and not kept.
 */
async function receive(req: IncomingMessage, res: ServerResponse, into: ScriptedRequest[]): Promise<ScriptedRequest | undefined> {
  const text = await readBody(req);
  if (text === undefined) return void json(res, 413, { error: { message: "body too large" } });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return void json(res, 400, { error: { message: "body is not JSON" } });
  }
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
  const request = { body, headers, at: performance.now(), aborted: false };
  into.push(request);
  res.on("close", () => {
    if (!res.writableFinished) request.aborted = true;
  });
  return request;
}

function answer(res: ServerResponse, body: any, entry: ScriptedAnswer, id: string): void {
  const promptWords = words(JSON.stringify(body.messages ?? []));
  const usage = entry.usage ?? { prompt_tokens: promptWords, completion_tokens: words(entry.text) };
  const totals = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
  const model = typeof body.model === "string" ? body.model : "scripted";
  const finish = entry.finish_reason ?? "stop";
  const created = Math.floor(Date.now() / 1000);
  if (body.stream !== true) {
    json(res, 200, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message: { role: "assistant", content: entry.text }, finish_reason: finish }],
      usage: totals,
    });
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const pieces = Math.max(1, entry.chunks ?? 3);
  const size = Math.ceil(entry.text.length / pieces) || 1;
  const chunk = (delta: Record<string, unknown>, finish_reason: string | null, extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`;
  res.write(chunk({ role: "assistant", content: "" }, null));
  for (let i = 0; i < entry.text.length; i += size) res.write(chunk({ content: entry.text.slice(i, i + size) }, null));
  res.write(chunk({}, finish));
  if (body.stream_options?.include_usage === true)
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: totals })}\n\n`);
  res.end("data: [DONE]\n\n");
}

export interface ScriptedLlmOptions {
  /** The vector `/v1/embeddings` answers for a text (a suite that needs synonyms to meet). @defaultValue scriptedEmbedding */
  readonly embedding?: (text: string) => number[];
}

export async function startScriptedLlm(script?: ScriptFunction, options: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  const queue: ScriptedEntry[] = [];
  const requests: ScriptedRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  let count = 0;
  const embeddingRequests: ScriptedRequest[] = [];
  const embeddingFailures: (ScriptedFailure | ScriptedHang)[] = [];
  /** A scripted failure answered, or a hang: the request held open until the client leaves or the server closes. */
  const fail = (res: ServerResponse, entry: ScriptedFailure | ScriptedHang): void => {
    if ("hang" in entry) {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
    } else json(res, entry.status, entry.body ?? { error: { message: `scripted ${entry.status}` } }, entry.headers);
  };
  const server = createServer(async (req, res) => {
    if (req.method === "POST" && req.url?.split("?")[0] === "/v1/embeddings") return embeddings(req, res);
    if (req.method !== "POST" || req.url?.split("?")[0] !== "/v1/chat/completions")
      return json(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
    const request = await receive(req, res, requests);
    if (request === undefined) return;
    const { body } = request;
    const index = count++;
    const entry = script?.(body, index) ?? queue.shift();
    if (entry === undefined) return json(res, 500, { error: { message: `scripted server: request ${index + 1} was not scripted` } });
    if ("hang" in entry || "status" in entry) return fail(res, entry);
    if (entry.delayMs !== undefined) await sleep(entry.delayMs);
    answer(res, body, entry, `chatcmpl-${index + 1}`);
  });
  async function embeddings(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request = await receive(req, res, embeddingRequests);
    if (request === undefined) return;
    const failure = embeddingFailures.shift();
    if (failure !== undefined) return fail(res, failure);
    answerEmbeddings(res, request.body, options.embedding);
  }
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...entries) => void queue.push(...entries),
    embeddingRequests,
    failEmbeddings: (...entries) => void embeddingFailures.push(...entries),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
