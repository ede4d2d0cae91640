/** The one capability every server in this benchmark serves: a 5-field input, a small JSON answer. */
import { objectSchema, type ComponentSpec } from "agent-manifold/runtime";

export const spec: ComponentSpec = {
  kind: "tool",
  name: "bench-tool",
  description: "HTTP benchmark target",
  version: "1.0.0",
  capabilities: [
    {
      name: "quote",
      key: "quote",
      description: "Prices a trip",
      type: "tool",
      internal: false,
      endpoint: "/api/capabilities/quote",
      input: {
        required: [
          { name: "city", type: "string" },
          { name: "amount", type: "number" },
          { name: "nights", type: "integer" },
        ],
        optional: [
          { name: "refundable", type: "boolean" },
          { name: "currency", type: "string", enum: ["EUR", "USD", "GBP"] },
        ],
      },
      output: {
        required: [
          { name: "city", type: "string" },
          { name: "total", type: "number" },
        ],
        optional: [],
      },
    },
  ],
};

export const PATH = "/api/capabilities/quote";

export type QuoteInput = { city: string; amount: number; nights: number; refundable?: boolean; currency?: "EUR" | "USD" | "GBP" };
export type QuoteOutput = { city: string; total: number };
export type BenchCapabilities = { quote: { input: QuoteInput; output: QuoteOutput } };

/** The same draft-07 schema the runtime compiles, for the bare and fastify servers. */
export const inputSchema = objectSchema(spec.capabilities[0]!.input!, "draft-07");

export function quote(input: QuoteInput): QuoteOutput {
  return { city: input.city, total: input.amount * input.nights };
}

/** The other route every server serves: a GET with a path parameter, as an extension's routes are. */
export const ITEM_ROUTE = "/api/items/:id";
export const ITEM_PATH = "/api/items/b-42";
const ITEMS = "/api/items/";

/** The `:id` of a URL on ITEM_ROUTE, decoded, for the servers that route by hand; undefined for any other URL. */
export function itemIdOf(url: string): string | undefined {
  return url.startsWith(ITEMS) && url.indexOf("/", ITEMS.length) === -1 ? decodeURIComponent(url.slice(ITEMS.length)) : undefined;
}

export function item(id: string): { id: string; name: string; stock: number } {
  return { id, name: `item ${id}`, stock: id.length };
}

export const BODY = JSON.stringify({ city: "Lisbon", amount: 120.5, nights: 3, refundable: true, currency: "EUR" });

/** Every server prints its URL as one JSON line on stdout; run.ts reads it. */
export function announce(url: string): void {
  process.stdout.write(`${JSON.stringify({ url })}\n`);
}
