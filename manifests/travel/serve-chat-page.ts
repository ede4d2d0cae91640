/**
 * The example chat page (manifests/travel/chat-page: plain HTML and JS, no build step) on its own
 * small loopback server. The page talks to the agent's `/chat/stream` in the AI SDK's UI message
 * stream protocol and answers approvals on `/hitl/command`: cross-origin calls the agent answers only
 * because its MANIFOLD_CORS_ORIGINS names this page's origin (start.ts adds it, as for the dashboard).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/chat.js": { file: "chat.js", type: "text/javascript; charset=utf-8" },
  "/chat.css": { file: "chat.css", type: "text/css; charset=utf-8" },
};

export interface ChatPage {
  /** `http://127.0.0.1:<port>`: the page's origin, for the agent's CORS list. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the page; `agentUrl` (read on each request, so the agent may start after the page) is where
 * the page sends its chat, given to it as `/config.json`.
 */
export async function serveChatPage({ agentUrl, port = 0 }: { agentUrl: () => string | undefined; port?: number }): Promise<ChatPage> {
  const folder = new URL("./chat-page/", import.meta.url);
  const files = new Map(Object.entries(FILES).map(([path, { file, type }]) => [path, { type, body: readFileSync(new URL(file, folder)) }]));
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://page").pathname;
    const agent = agentUrl() ?? "";
    if (req.method !== "GET") {
      res.writeHead(405, { allow: "GET" }).end();
      return;
    }
    // The page may load only its own files and talk only to the agent; it may not be framed.
    const security = {
      "content-security-policy": `default-src 'self'; connect-src 'self' ${agent}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
    };
    if (path === "/config.json") {
      res.writeHead(200, { ...security, "content-type": "application/json" }).end(JSON.stringify({ agent_url: agent }));
      return;
    }
    if (path === "/favicon.ico") {
      res.writeHead(204, security).end();
      return;
    }
    const found = files.get(path);
    if (found === undefined) {
      res.writeHead(404, security).end();
      return;
    }
    res.writeHead(200, { ...security, "content-type": found.type }).end(found.body);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
