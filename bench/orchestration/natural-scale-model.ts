/**
 * bench:natural-scale's model: an instant OpenAI-compatible chat completions endpoint on loopback
 * that answers by request kind (the json_schema `name`, DESIGN §5.3) and keeps, for every call, its
 * kind, its prompt's bytes (message texts, as `promptBytes` counts them) and the time the call spent
 * at this server (from the request's arrival to the end of the answer), which the bench subtracts
 * from a request's wall time to get what the orchestration costs on its own.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ModelCall {
  /** The json_schema name (`capability_selection`, `routing_plan`, ...), or `synthesis` for a text request. */
  readonly kind: string;
  readonly promptBytes: number;
  readonly ms: number;
}

export interface TimedModel {
  readonly baseUrl: string;
  /** Every call so far; the bench empties it between requests. */
  readonly calls: ModelCall[];
  close(): Promise<void>;
}

/** What the model answers, by kind; an unknown kind is a 500, so a bench that scripts too little fails. */
export type Answers = Readonly<Record<string, string>>;

async function bodyOf(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

export async function startTimedModel(answers: Answers): Promise<TimedModel> {
  const calls: ModelCall[] = [];
  const sockets = new Set<Socket>();
  let count = 0;
  const server = createServer(async (req, res) => {
    const arrived = performance.now();
    const body = JSON.parse(await bodyOf(req)) as { messages: { content: string }[]; response_format?: { json_schema?: { name?: string } } };
    const kind = body.response_format?.json_schema?.name ?? "synthesis";
    let promptBytes = 0;
    for (const message of body.messages) promptBytes += Buffer.byteLength(message.content, "utf8");
    res.on("finish", () => calls.push({ kind, promptBytes, ms: performance.now() - arrived }));
    const text = answers[kind];
    res.writeHead(text === undefined ? 500 : 200, { "content-type": "application/json" });
    count += 1;
    if (text === undefined) return res.end(JSON.stringify({ error: { message: `the bench model has no answer for ${kind}` } }));
    res.end(
      JSON.stringify({
        id: `chatcmpl-${count}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: "bench-model",
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage: {
          prompt_tokens: Math.ceil(promptBytes / 4),
          completion_tokens: Math.ceil(text.length / 4),
          total_tokens: Math.ceil((promptBytes + text.length) / 4),
        },
      }),
    );
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
