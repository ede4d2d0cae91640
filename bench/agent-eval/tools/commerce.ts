/** Orders, shipments, stock and support tickets: ids with a format, enums with a casing, lookups a model skips. */
import { conflict, defineTool, digest, invalid, notFound, type BenchTool } from "./define.js";

interface Order {
  readonly order_id: string;
  readonly status: "pending" | "shipped" | "delivered" | "cancelled";
  readonly customer_id: string;
  readonly total: number;
  readonly currency: string;
  /** As the shop's system writes it (upper case); the carrier API takes lower case. */
  readonly carrier: string;
  readonly tracking_number: string;
  readonly placed_at: string;
  readonly expected_by: string;
  readonly items: readonly string[];
}

const ORDERS: readonly Order[] = [
  {
    order_id: "ORD-1042",
    status: "delivered",
    customer_id: "U-1001",
    total: 59.9,
    currency: "EUR",
    carrier: "UPS",
    tracking_number: "1Z999AA10123456784",
    placed_at: "2025-06-01",
    expected_by: "2025-06-08",
    items: ["ceramic mug set"],
  },
  {
    order_id: "ORD-1043",
    status: "shipped",
    customer_id: "U-1001",
    total: 120,
    currency: "EUR",
    carrier: "DHL",
    tracking_number: "JD014600003366",
    placed_at: "2025-05-20",
    expected_by: "2025-05-30",
    items: ["espresso machine"],
  },
  {
    order_id: "ORD-1044",
    status: "pending",
    customer_id: "U-1001",
    total: 35.5,
    currency: "EUR",
    carrier: "FEDEX",
    tracking_number: "none",
    placed_at: "2025-06-09",
    expected_by: "2025-06-16",
    items: ["tea towels"],
  },
  {
    order_id: "ORD-2001",
    status: "delivered",
    customer_id: "U-1002",
    total: 249,
    currency: "EUR",
    carrier: "DHL",
    tracking_number: "JD014600009999",
    placed_at: "2025-05-02",
    expected_by: "2025-05-09",
    items: ["office chair"],
  },
];

const SHIPMENTS: Readonly<Record<string, { status: string; location: string; eta: string }>> = {
  "1Z999AA10123456784": { status: "delivered", location: "Lisbon", eta: "2025-06-08" },
  JD014600003366: { status: "held at customs", location: "Leipzig hub", eta: "2025-06-14" },
  JD014600009999: { status: "delivered", location: "Berlin", eta: "2025-05-09" },
};

function order(id: string): Order {
  if (!/^ORD-\d{4}$/.test(id)) throw invalid("order_id", "must look like ORD-1042");
  const found = ORDERS.find((o) => o.order_id === id);
  if (found === undefined) throw notFound(`no order ${id}`);
  return found;
}

const summary = ({ order_id, status, total, currency, placed_at }: Order) => ({ order_id, status, total, currency, placed_at });
const ORDER_STATUS = { type: "string", enum: ["pending", "shipped", "delivered", "cancelled"] } as const;

export const orders: BenchTool = defineTool("orders", "The shop's orders: look up, list, refund, cancel", {
  get: {
    description: "One order by id (ORD-1234)",
    input: { order_id: "string" },
    output: {
      order_id: "string",
      status: "string",
      customer_id: "string",
      total: "number",
      currency: "string",
      carrier: "string",
      tracking_number: "string",
      placed_at: "string",
      expected_by: "string",
      items: { type: "array", items: "string" },
    },
    handler: ({ order_id }) => order(order_id),
  },
  list: {
    description: "A customer's orders, newest first",
    input: { customer_id: "string", "status?": ORDER_STATUS, "limit?": "integer" },
    output: {
      orders: {
        type: "array",
        items: { type: "object", fields: { order_id: "string", status: "string", total: "number", currency: "string", placed_at: "string" } },
      },
      count: "integer",
    },
    handler: ({ customer_id, status, limit = 10 }) => {
      if (!/^U-\d{4}$/.test(customer_id)) throw invalid("customer_id", "must be a customer id like U-1001 (users.me gives the caller's)");
      const list = ORDERS.filter((o) => o.customer_id === customer_id && (status === undefined || o.status === status))
        .sort((a, b) => b.placed_at.localeCompare(a.placed_at))
        .slice(0, limit)
        .map(summary);
      return { orders: list, count: list.length };
    },
  },
  refund: {
    description: "Refunds (part of) a delivered order",
    input: {
      order_id: "string",
      amount: { type: "number", description: "in the order's currency" },
      reason: { type: "string", enum: ["damaged", "late", "not_as_described", "other"] },
    },
    output: { refund_id: "string", order_id: "string", amount: "number", currency: "string", status: "string" },
    handler: ({ order_id, amount }) => {
      const found = order(order_id);
      if (found.status !== "delivered") throw conflict(`order ${order_id} is ${found.status}; only delivered orders are refunded`);
      if (amount <= 0 || amount > found.total) throw invalid("amount", `must be between 0 and the order total, ${found.total} ${found.currency}`);
      return { refund_id: `RF-${digest(order_id + amount)}`, order_id, amount, currency: found.currency, status: "issued" };
    },
  },
  cancel: {
    description: "Cancels an order that has not shipped",
    input: { order_id: "string" },
    output: { order_id: "string", status: "string" },
    handler: ({ order_id }) => {
      const found = order(order_id);
      if (found.status !== "pending") throw conflict(`order ${order_id} is ${found.status} and can no longer be cancelled`);
      return { order_id, status: "cancelled" };
    },
  },
});

export const shipping: BenchTool = defineTool("shipping", "Parcel tracking across carriers", {
  track: {
    description: "Where a parcel is",
    input: { carrier: { type: "string", enum: ["ups", "fedex", "dhl", "usps"] }, tracking_number: "string" },
    output: { status: "string", location: "string", eta: "string" },
    handler: ({ tracking_number }) => {
      const found = SHIPMENTS[tracking_number];
      if (found === undefined) throw notFound(`no parcel ${tracking_number}`);
      return found;
    },
  },
});

const PRODUCTS = [
  { sku: "SKU-2001", name: "blue ceramic mug", price: 12.5, quantity: 0, alternatives: ["SKU-2002"] },
  { sku: "SKU-2002", name: "navy ceramic mug", price: 12.5, quantity: 14, alternatives: [] },
  { sku: "SKU-3001", name: "espresso cup", price: 8, quantity: 40, alternatives: [] },
];

function product(sku: string) {
  if (!/^SKU-\d{4}$/.test(sku)) throw invalid("sku", "must look like SKU-2001 (find it with stock.search)");
  const found = PRODUCTS.find((p) => p.sku === sku);
  if (found === undefined) throw notFound(`no product ${sku}`);
  return found;
}

export const stock: BenchTool = defineTool("stock", "Product search, stock levels and reservations", {
  search: {
    description: "Products matching a query",
    input: { query: "string" },
    output: { results: { type: "array", items: { type: "object", fields: { sku: "string", name: "string", price: "number" } } } },
    handler: ({ query }) => {
      const words = String(query).toLowerCase().split(/\s+/);
      return { results: PRODUCTS.filter((p) => words.every((w) => p.name.includes(w))).map(({ sku, name, price }) => ({ sku, name, price })) };
    },
  },
  check: {
    description: "Stock of one product (SKU-1234)",
    input: { sku: "string" },
    output: { sku: "string", name: "string", in_stock: "boolean", quantity: "integer", alternatives: { type: "array", items: "string" } },
    handler: ({ sku }) => {
      const { name, quantity, alternatives } = product(sku);
      return { sku, name, in_stock: quantity > 0, quantity, alternatives };
    },
  },
  reserve: {
    description: "Reserves units of a product",
    input: { sku: "string", quantity: "integer" },
    output: { reservation_id: "string", sku: "string", quantity: "integer" },
    handler: ({ sku, quantity }) => {
      const found = product(sku);
      if (quantity < 1) throw invalid("quantity", "must be at least 1");
      if (quantity > found.quantity) throw conflict(`only ${found.quantity} of ${sku} in stock`);
      return { reservation_id: `RS-${digest(sku + quantity)}`, sku, quantity };
    },
  },
});

export const tickets: BenchTool = defineTool("tickets", "Customer support tickets", {
  create: {
    description: "Opens a support ticket",
    input: {
      title: "string",
      priority: { type: "string", enum: ["low", "normal", "high", "urgent"] },
      customer_id: "string",
      "order_id?": "string",
    },
    output: { ticket_id: "string", priority: "string" },
    handler: ({ title, priority, customer_id, order_id }) => {
      if (!/^U-\d{4}$/.test(customer_id)) throw invalid("customer_id", "must be a customer id like U-1001");
      if (order_id !== undefined) order(order_id);
      return { ticket_id: `TK-${digest(title + customer_id)}`, priority };
    },
  },
});
