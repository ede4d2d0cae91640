/** A loopback "tool" that records exactly what arrives, for the outbound suites. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { startServer } from "../runtime/support.js";

export interface Received {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Added by fetch or the transport, not by the caller: left out so tests can compare the rest exactly. */
const TRANSPORT = new Set(["host", "connection", "content-length", "accept", "accept-language", "accept-encoding", "sec-fetch-mode", "user-agent"]);

/** The headers the caller chose to send, ids replaced by a marker when `ids` is false. */
export function callerHeaders(headers: IncomingHttpHeaders, { ids = false }: { ids?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (TRANSPORT.has(name) || value === undefined) continue;
    const text = Array.isArray(value) ? value.join(", ") : value;
    out[name] = !ids && (name === "x-manifold-request-id" || name === "x-manifold-step-id") && /^[0-9a-f-]{36}$/.test(text) ? "<uuid>" : text;
  }
  return out;
}

export type Answer = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const ok: Answer = (_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');

/** Records every request; `answer` decides the response (200 `{"ok":true}` by default). */
export async function startRecorder(answer: Answer = ok): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = await startServer((req, res) => {
    let body = "";
    req
      .setEncoding("utf8")
      .on("data", (part: string) => (body += part))
      .on("end", () => {
        received.push({ url: req.url ?? "", headers: req.headers, body });
        answer(req, res, body);
      });
  });
  return { url: server.url, received, close: server.close };
}
