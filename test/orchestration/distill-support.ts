/**
 * For the result-distillation suites: a real `dataset` tool on loopback whose `rows` capability
 * answers with as many rows as asked (10,000 rows of 200 bytes: a 2 MB result) and whose `count`
 * capability counts the rows it is given (what proves a template saw the full output), and a way to
 * tell the scripted model's requests apart by what they are.
 */
import { serveComponent, type ComponentOptions, type RunningComponent } from "../../runtime/component/index.js";
import { MAP_SYSTEM_START, REDUCE_SYSTEM_START } from "../../runtime/orchestration/natural/distill-prompts.js";
import type { ComponentSpec } from "../../runtime/spec/types.js";
import { capability } from "./support.js";

export interface Row {
  readonly id: number;
  readonly city: string;
  readonly temp: number;
  readonly note: string;
}

export const rowsOf = (count: number, width: number): Row[] =>
  Array.from({ length: count }, (_, id) => ({ id, city: `city-${id}`, temp: id % 40, note: "n".repeat(width) }));

export interface Dataset {
  readonly spec: ComponentSpec;
  readonly running: RunningComponent;
  /** The `rows` answers sent, in order. */
  readonly served: number[];
  close(): Promise<void>;
}

export async function startDataset(): Promise<Dataset> {
  const int = (name: string) => ({ name, type: "integer" as const });
  const spec: ComponentSpec = {
    kind: "tool",
    name: "dataset",
    description: "rows of weather readings",
    version: "1.0.0",
    capabilities: [
      capability("rows", { required: [int("count"), int("width")], optional: [] }),
      capability(
        "count",
        { required: [{ name: "rows", type: "array", items: { type: "object" } }], optional: [] },
        { required: [{ name: "count", type: "integer" }], optional: [{ name: "last_city", type: "string" }] },
      ),
    ],
  };
  const served: number[] = [];
  type In = Record<string, unknown>;
  const handlers: ComponentOptions<Record<string, { input: In; output: unknown }>>["handlers"] = {
    rows: (input) => {
      served.push(Number(input["count"]));
      return { total: input["count"], rows: rowsOf(Number(input["count"]), Number(input["width"])) };
    },
    count: (input) => {
      const rows = input["rows"] as Row[];
      return { count: rows.length, last_city: rows.at(-1)?.city ?? "" };
    },
  };
  const running = await serveComponent(spec, {
    port: 0,
    handlers,
    registry: false,
    handleSignals: false,
    log: () => undefined,
    bodyLimit: 16 * 1024 * 1024,
    drainTimeoutMs: 200,
  });
  return { spec, running, served, close: () => running.close() };
}

export type RequestKind = "plan" | "map" | "reduce" | "synthesis" | "other";

/** What a model request is: a plan (structured), a distillation stage (by its system prompt), the synthesis. */
export function kindOf(body: any): RequestKind {
  if (body.response_format !== undefined) return "plan";
  const system = String(body.messages?.[0]?.content ?? "");
  if (system.startsWith(MAP_SYSTEM_START)) return "map";
  if (system.startsWith(REDUCE_SYSTEM_START)) return "reduce";
  if (system.startsWith("You answer the user's request")) return "synthesis";
  return "other";
}

/** The bytes of a request's messages as sent (what the prompt budget counts). */
export const promptSize = (body: any): number => (body.messages as { content: string }[]).reduce((n, m) => n + Buffer.byteLength(m.content, "utf8"), 0);

/** "part 3 of 8" in a map prompt → 3. */
export const partOf = (body: any): number => Number(/part (\d+) of \d+/.exec(String(body.messages[1].content))?.[1] ?? 0);

/** A span event as the OTLP receiver keeps it. */
export type Event = { readonly name: string; readonly attributes: Record<string, unknown> };

/** The attributes of each event with this name, in order. */
export const named = (events: readonly Event[], name: string) => events.filter((e) => e.name === name).map((e) => e.attributes);

/** The bodies of the model requests of one kind, in arrival order. */
export const bodiesOf = ({ llm }: { readonly llm: { readonly requests: readonly { readonly body: any }[] } }, kind: RequestKind): any[] =>
  llm.requests.map((r) => r.body).filter((b) => kindOf(b) === kind);

/** A request's user message. */
export const userPrompt = (body: any): string => String(body.messages[1].content);
