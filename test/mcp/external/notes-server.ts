/**
 * An external MCP server built the way the rest of the field builds one: the official SDK's
 * `McpServer`, zod schemas, nothing from Manifold. The client-side suites run it as a child process,
 * over stdio (`--stdio`) or Streamable HTTP (`--http [--port N] [--token T]`, printing `listening <url>`).
 *
 * Tools: `add_note` and `search-notes` (structured, with output schemas; the dash is deliberate: a
 * capability name is snake_case), `shout` (text only, no output schema), `fail_always` (a tool error),
 * and `slow` (waits `ms`, for timeouts and a server killed mid-call). `--extra-tool` (or NOTES_EXTRA_TOOL=1) adds `archive_note`,
 * as a new version of the server would (gen's lock refresh tests).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const EXTRA_TOOL = process.argv.includes("--extra-tool") || process.env["NOTES_EXTRA_TOOL"] === "1";

interface Note {
  readonly id: string;
  readonly title: string;
  readonly body: string;
  readonly tags: readonly string[];
}

function buildServer(notes: Note[]): McpServer {
  const server = new McpServer({ name: "notes-server", version: "2.1.0" });
  server.registerTool(
    "add_note",
    {
      description: "Stores a note and answers its id",
      inputSchema: { title: z.string().min(1).describe("A short title"), body: z.string(), tags: z.array(z.string()).optional() },
      outputSchema: { id: z.string(), title: z.string(), count: z.number().int() },
    },
    async ({ title, body, tags }) => {
      const note = { id: `n${notes.length + 1}`, title, body, tags: tags ?? [] };
      notes.push(note);
      const answer = { id: note.id, title, count: notes.length };
      return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer };
    },
  );
  server.registerTool(
    "search-notes",
    {
      description: "Finds notes whose title or body holds the query",
      inputSchema: { query: z.string(), limit: z.number().int().min(1).max(50).optional() },
      outputSchema: { notes: z.array(z.object({ id: z.string(), title: z.string() })), total: z.number().int() },
    },
    async ({ query, limit }) => {
      const found = notes.filter((n) => n.title.includes(query) || n.body.includes(query));
      const answer = { notes: found.slice(0, limit ?? 10).map(({ id, title }) => ({ id, title })), total: found.length };
      return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer };
    },
  );
  server.registerTool("shout", { description: "Answers the text in capitals", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text: text.toUpperCase() }],
  }));
  server.registerTool("fail_always", { description: "Always answers a tool error", inputSchema: { why: z.string().optional() } }, async ({ why }) => ({
    isError: true,
    content: [{ type: "text", text: `refused: ${why ?? "no reason"}` }],
  }));
  server.registerTool("slow", { description: "Answers after ms milliseconds", inputSchema: { ms: z.number().int().min(0).max(60_000) } }, async ({ ms }) => {
    // A suite that kills the server mid-call waits for this line: the call is then in flight.
    process.stderr.write(`slow started ${ms}\n`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { content: [{ type: "text", text: `waited ${ms}` }] };
  });
  if (EXTRA_TOOL) {
    server.registerTool("archive_note", { description: "Archives a note", inputSchema: { id: z.string() } }, async ({ id }) => ({
      content: [{ type: "text", text: `archived ${id}` }],
    }));
  }
  return server;
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

async function serveHttp(port: number, token: string | undefined): Promise<void> {
  const notes: Note[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (transport === undefined) {
      if (typeof id === "string") {
        res.writeHead(404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => void sessions.set(sid, created),
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) sessions.delete(created.sessionId);
      };
      await buildServer(notes).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.method === "POST" ? await body(req) : undefined);
  });
  http.listen(port, "127.0.0.1", () => {
    const address = http.address();
    if (address !== null && typeof address === "object") process.stdout.write(`listening http://127.0.0.1:${address.port}/mcp\n`);
  });
  const stop = (): void => void http.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
if (args.includes("--http")) {
  await serveHttp(Number(option("--port") ?? "0"), option("--token"));
} else {
  await buildServer([]).connect(new StdioServerTransport());
}
