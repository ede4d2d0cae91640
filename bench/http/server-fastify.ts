/** (c) The reference: fastify with the same JSON schema as its body schema, default settings. */
import "./probe.js";
import Fastify from "fastify";
import { announce, inputSchema, PATH, quote, type QuoteInput } from "./spec.js";

const app = Fastify({ logger: false });
app.post<{ Body: QuoteInput }>(PATH, { schema: { body: inputSchema } }, async (request) => quote(request.body));
announce(await app.listen({ port: 0, host: "127.0.0.1" }));
