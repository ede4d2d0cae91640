/**
 * The client-side MCP suites' external server: test/mcp/external/notes-server.ts (the SDK's own
 * McpServer) as a child process, and the component spec a `kind: mcp` manifest naming it would give
 * (capability names in snake_case, `endpoint: "mcp:<tool>"`, output `{ text }` for a tool without an
 * output schema), written out here until the manifest builder's output can be used instead.
 */
import { fileURLToPath } from "node:url";
import type { CapabilitySpec, ComponentSpec, FieldSpec, McpServerSpec, McpToolSpec } from "../../runtime/spec/index.js";
import { startProcess, type Started } from "../support/processes.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const NOTES_SERVER = "test/mcp/external/notes-server.ts";
const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

const string = (name: string): FieldSpec => ({ name, type: "string" });
const integer = (name: string): FieldSpec => ({ name, type: "integer" });

function tool(
  name: string,
  key: string,
  description: string,
  fields: { required: FieldSpec[]; optional?: FieldSpec[]; output?: { required: FieldSpec[]; optional: FieldSpec[] } },
  mcpTool: McpToolSpec,
): CapabilitySpec {
  return {
    name,
    key,
    description,
    type: "tool",
    internal: false,
    endpoint: `mcp:${mcpTool.name}`,
    input: { required: fields.required, optional: fields.optional ?? [] },
    output: fields.output ?? { required: [string("text")], optional: [] },
    mcpTool,
  };
}

const NOTE_ITEM = { type: "object", properties: { id: { type: "string" }, title: { type: "string" } }, required: ["id", "title"], additionalProperties: false };

/** The notes server's tools as its lock file snapshots them (see the server for what each does). */
export const NOTES_CAPABILITIES: readonly CapabilitySpec[] = [
  tool(
    "add_note",
    "addNote",
    "Stores a note and answers its id",
    {
      required: [string("title"), string("body")],
      optional: [{ name: "tags", type: "array", items: { type: "string" } }],
      output: { required: [string("id"), string("title"), integer("count")], optional: [] },
    },
    {
      name: "add_note",
      inputSchema: {
        type: "object",
        properties: {
          title: { type: "string", minLength: 1, description: "A short title" },
          body: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
        },
        required: ["title", "body"],
        $schema: DRAFT_07,
      },
      outputSchema: {
        type: "object",
        properties: { id: { type: "string" }, title: { type: "string" }, count: { type: "integer" } },
        required: ["id", "title", "count"],
        additionalProperties: false,
        $schema: DRAFT_07,
      },
    },
  ),
  tool(
    "search_notes",
    "searchNotes",
    "Finds notes whose title or body holds the query",
    {
      required: [string("query")],
      optional: [integer("limit")],
      output: {
        required: [
          { name: "notes", type: "array", items: { type: "object", fields: { required: [string("id"), string("title")], optional: [] } } },
          integer("total"),
        ],
        optional: [],
      },
    },
    {
      name: "search-notes",
      inputSchema: {
        type: "object",
        properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 50 } },
        required: ["query"],
        $schema: DRAFT_07,
      },
      outputSchema: {
        type: "object",
        properties: { notes: { type: "array", items: NOTE_ITEM }, total: { type: "integer" } },
        required: ["notes", "total"],
        additionalProperties: false,
        $schema: DRAFT_07,
      },
    },
  ),
  tool(
    "shout",
    "shout",
    "Answers the text in capitals",
    { required: [string("text")] },
    {
      name: "shout",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], $schema: DRAFT_07 },
    },
  ),
  tool(
    "fail_always",
    "failAlways",
    "Always answers a tool error",
    { required: [], optional: [string("why")] },
    {
      name: "fail_always",
      inputSchema: { type: "object", properties: { why: { type: "string" } }, $schema: DRAFT_07 },
    },
  ),
  tool(
    "slow",
    "slow",
    "Answers after ms milliseconds",
    { required: [integer("ms")] },
    {
      name: "slow",
      inputSchema: { type: "object", properties: { ms: { type: "integer", minimum: 0, maximum: 60_000 } }, required: ["ms"], $schema: DRAFT_07 },
    },
  ),
];

/** A `kind: mcp` component's spec for the notes server at `server` (stdio by default). */
export function notesSpec(server: Partial<McpServerSpec> = {}, name = "notes"): ComponentSpec {
  const address = server.url === undefined ? { command: process.execPath, args: [...TS_NODE_ARGS, NOTES_SERVER] } : {};
  return {
    kind: "tool",
    name,
    description: "An external notes server (MCP)",
    version: "2.1.0",
    capabilities: NOTES_CAPABILITIES,
    mcpServer: { ...address, ...server, hash: "sha256:test" },
  };
}

/** The notes server over Streamable HTTP on `port` (a free one by default), requiring `token` when given. */
export async function startNotesHttp({
  port = "free" as number | "free",
  token,
}: {
  port?: number | "free";
  token?: string;
} = {}): Promise<Started & { url: string; port: number }> {
  const chosen = port === "free" ? (await import("../support/ports.js")).freePort() : port;
  const at = await chosen;
  const started = await startProcess({
    name: `notes-server:${at}`,
    entry: NOTES_SERVER,
    args: ["--http", "--port", String(at), ...(token === undefined ? [] : ["--token", token])],
    ready: { line: /^listening (\S+)$/ },
  });
  return Object.assign(started, { url: started.url!, port: at });
}
