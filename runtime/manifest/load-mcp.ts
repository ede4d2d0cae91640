/**
 * `kind: mcp`: an external MCP server used as a component. The manifest says where the server is;
 * the tools come from its lock file beside it (`<name>.mcp-lock.json`, written by `manifold gen`), so
 * loading never contacts the server. Each tool becomes a capability whose fields are its JSON Schemas
 * mapped by json-schema-fields.ts; the rest of the checks then see a tool like any other.
 */
import { posix } from "node:path";
import { mcpToolsHash } from "../mcp/index.js";
import { MCP_LOCK_VERSION, mcpLockFileName, parseDuration, toCamelCase } from "../spec/index.js";
import type { ComponentSpec, McpLock, McpLockTool, McpServerSpec } from "../spec/index.js";
import type { DiagnosticCode } from "./codes.js";
import { createDiagnostic } from "./diagnostics/create.js";
import type { ManifestFiles } from "./feature.js";
import { jsonSchemaFields } from "./json-schema-fields.js";
import type { RawCapability, RawComponent, RawMcp } from "./manifest-types.js";
import { normaliseComponent } from "./normalise.js";
import { isRecord, readLockJson } from "./remote-lock.js";
import type { Diagnostic, McpManifestInfo } from "./project.js";
import { valuePosition, type Path, type SourceFile } from "./source-file.js";

/** Where an MCP server is, without its lock's hash: what `gen` connects to. */
export type McpAddress = Omit<McpServerSpec, "hash">;

export interface McpLoadResult {
  readonly diagnostics: Diagnostic[];
  readonly info?: McpManifestInfo;
  /** The tool view the cross-file checks read, and the component; absent unless the lock is sound. */
  readonly view?: RawComponent;
  readonly component?: ComponentSpec;
}

/** The lock file of the manifest `file` declaring `name`: beside it. */
export function mcpLockPath(file: string, name: string): string {
  return posix.join(posix.dirname(file), mcpLockFileName(name));
}

/** `search-notes` → `search_notes`, `getWeather` → `get_weather`: the capability name rule (snake_case). */
export function capabilityNameOf(tool: string): string {
  const snake = tool
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (snake === "") return "tool";
  return /^[a-z]/.test(snake) ? snake : `tool_${snake}`;
}

function addressProblems(raw: RawMcp): { path: Path; message: string }[] {
  const both = raw.url !== undefined && raw.command !== undefined;
  if (both || (raw.url === undefined && raw.command === undefined)) {
    return [{ path: both ? ["command"] : ["kind"], message: "a `kind: mcp` manifest sets exactly one of `url` (Streamable HTTP) and `command` (stdio)" }];
  }
  const problems: { path: Path; message: string }[] = [];
  if (raw.url !== undefined) {
    let protocol: string | undefined;
    try {
      protocol = new URL(raw.url).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== "http:" && protocol !== "https:")
      problems.push({ path: ["url"], message: "`url` must be an http:// or https:// URL of the server's MCP endpoint" });
    for (const key of ["args", "env"] as const)
      if (raw[key] !== undefined) problems.push({ path: [key], message: `\`${key}\` goes with \`command\` (a stdio server), not \`url\`` });
  } else if (raw.auth !== undefined) {
    problems.push({
      path: ["auth"],
      message: "`auth.token_env` goes with `url` (a bearer token for an HTTP server); hand a stdio server its variables with `env`",
    });
  }
  return problems;
}

function addressOf(raw: RawMcp): McpAddress {
  const timeoutMs = raw.timeout === undefined ? undefined : parseDuration(raw.timeout);
  return {
    ...(raw.url !== undefined && { url: raw.url }),
    ...(raw.command !== undefined && { command: raw.command }),
    ...(raw.args !== undefined && { args: [...raw.args] }),
    ...(raw.env !== undefined && { env: [...raw.env] }),
    ...(raw.auth !== undefined && { tokenEnv: raw.auth.token_env }),
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
}

type LockRead = { readonly lock: McpLock } | { readonly code: DiagnosticCode; readonly message: string; readonly missing: boolean };

function isLockTool(value: unknown): value is McpLockTool {
  return (
    isRecord(value) &&
    typeof value["name"] === "string" &&
    isRecord(value["inputSchema"]) &&
    (value["outputSchema"] === undefined || isRecord(value["outputSchema"]))
  );
}

const REFRESH = "run `manifold gen --refresh-mcp` to fetch it again";

function readLock(path: string, files: ManifestFiles | undefined): LockRead {
  const read = readLockJson(path, files, MCP_LOCK_VERSION);
  if ("missing" in read) {
    const how = "run `manifold gen`, which fetches it from the server, or `manifold gen --refresh-mcp`, then commit it";
    return { code: "MF1602", missing: true, message: `the lock file ${path} is missing: ${how}` };
  }
  const invalid = (why: string): LockRead => ({ code: "MF1603", missing: false, message: `the lock file ${path} ${why}; ${REFRESH}` });
  if ("invalid" in read) return invalid(read.invalid);
  const { value } = read;
  const server = value["server"];
  const tools = value["tools"];
  if (!isRecord(server) || typeof server["name"] !== "string" || typeof server["version"] !== "string") return invalid("has no `server` name and version");
  if (!Array.isArray(tools) || !tools.every(isLockTool)) return invalid("has a `tools` list that is not the server's tools");
  if (value["hash"] !== mcpToolsHash(tools)) return invalid("has a `hash` that does not match its tools (was it edited by hand?)");
  return { lock: value as unknown as McpLock };
}

function description(tool: McpLockTool): string {
  for (const text of [tool.description, tool.title]) if (text !== undefined && text.trim() !== "") return text;
  return `The ${tool.name} tool of the MCP server`;
}

/** The text answer of a tool that declares no output schema. */
const TEXT_OUTPUT = { required: [{ name: "text", type: "string" as const, description: "The tool's text content" }] };

function capabilityOf(tool: McpLockTool): RawCapability {
  const input = jsonSchemaFields(tool.inputSchema);
  const output = tool.outputSchema === undefined ? TEXT_OUTPUT : jsonSchemaFields(tool.outputSchema);
  return {
    name: capabilityNameOf(tool.name),
    description: description(tool),
    type: "tool",
    internal: false,
    endpoint: `mcp:${tool.name}`,
    ...(input !== undefined && { input }),
    ...(output !== undefined && { output }),
  };
}

/** MF1604 for two tools taking one capability name or TypeScript key. */
function clashes(tools: readonly McpLockTool[]): string[] {
  const problems: string[] = [];
  const byName = new Map<string, string>();
  const byKey = new Map<string, string>();
  for (const tool of tools) {
    const name = capabilityNameOf(tool.name);
    const key = toCamelCase(name);
    const first = byName.get(name) ?? byKey.get(key);
    if (first !== undefined) {
      problems.push(
        `tools \`${first}\` and \`${tool.name}\` of the server both become the capability \`${name}\` (\`${key}\` in TypeScript); the server must name them apart (rename one there, or put a server that exposes only one in front of it)`,
      );
      continue;
    }
    byName.set(name, tool.name);
    byKey.set(key, tool.name);
  }
  return problems;
}

/** One `kind: mcp` manifest that passed the meta-schema: its address checks, its lock, its component. */
export function loadMcpManifest(source: SourceFile, raw: RawMcp, files: ManifestFiles | undefined): McpLoadResult {
  const report = (code: DiagnosticCode, path: Path, message: string): Diagnostic => createDiagnostic(code, source.file, valuePosition(source, path), message);
  const problems = addressProblems(raw);
  if (problems.length > 0) return { diagnostics: problems.map((p) => report("MF1601", p.path, p.message)) };
  const address = addressOf(raw);
  const lockFile = mcpLockPath(source.file, raw.name);
  const at = valuePosition(source, [raw.url !== undefined ? "url" : "command"]);
  const read = readLock(lockFile, files);
  if (!("lock" in read)) {
    const info: McpManifestInfo = { file: source.file, name: raw.name, address, lockFile, lock: read.missing ? "missing" : "invalid", at };
    return { diagnostics: [report(read.code, ["name"], read.message)], info };
  }
  const info: McpManifestInfo = { file: source.file, name: raw.name, address, lockFile, lock: "ok", at };
  const clash = clashes(read.lock.tools);
  if (clash.length > 0) return { diagnostics: clash.map((message) => report("MF1604", ["name"], message)), info };
  const view: RawComponent = {
    kind: "tool",
    name: raw.name,
    description: raw.description,
    version: read.lock.server.version === "" ? "1.0.0" : read.lock.server.version,
    capabilities: read.lock.tools.map(capabilityOf),
  };
  const base = normaliseComponent(view, []);
  const component: ComponentSpec = {
    ...base,
    capabilities: base.capabilities.map((capability, i) => {
      const tool = read.lock.tools[i]!;
      return {
        ...capability,
        mcpTool: { name: tool.name, inputSchema: tool.inputSchema, ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema }) },
      };
    }),
    mcpServer: { ...address, hash: read.lock.hash },
  };
  return { diagnostics: [], info, view, component };
}
