/** (b) The floor: node:http doing the same read, JSON.parse, ajv validation and JSON reply, and the same GET route; nothing else. */
import "./probe.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv } from "ajv";
import { announce, inputSchema, item, itemIdOf, PATH, quote, type QuoteInput } from "./spec.js";

const validate = new Ajv({ allErrors: true }).compile<QuoteInput>(inputSchema);

function reply(res: import("node:http").ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer((req, res) => {
  const url = req.url ?? "/";
  const id = req.method === "GET" ? itemIdOf(url) : undefined;
  if (id !== undefined) return reply(res, 200, JSON.stringify(item(id)));
  if (req.method !== "POST" || url !== PATH) return reply(res, 404, '{"error":"not found"}');
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    let input: unknown;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return reply(res, 400, '{"error":"invalid json"}');
    }
    if (!validate(input)) return reply(res, 400, JSON.stringify({ error: validate.errors }));
    reply(res, 200, JSON.stringify(quote(input)));
  });
});
server.listen(0, "127.0.0.1", () => announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
