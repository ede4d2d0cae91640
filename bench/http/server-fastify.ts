/** (c) The reference: fastify with the same JSON schema as its body schema, and the same GET route; default settings. */
import "./probe.js";
import Fastify from "fastify";
import { announce, inputSchema, item, ITEM_ROUTE, PATH, quote, type QuoteInput } from "./spec.js";

const app = Fastify({ logger: false });
app.post<{ Body: QuoteInput }>(PATH, { schema: { body: inputSchema } }, async (request) => quote(request.body));
app.get<{ Params: { id: string } }>(ITEM_ROUTE, async (request) => item(request.params.id));
announce(await app.listen({ port: 0, host: "127.0.0.1" }));
