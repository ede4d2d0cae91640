/**
 * `manifold import openapi <file|url> [--name N] [--out DIR] [--force]`: an OpenAPI 3.0/3.1 or
 * Swagger 2.0 document → `<out>/<name>.yaml` (a tool manifest), `<name>.proxy.json` (where each
 * capability goes on the service), `<name>.proxy.ts` (the handlers and a `serve()`, no hand-written
 * code) and `<name>.import-report.md` (every operation and every diagnostic).
 */
import { access, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import type { CliIo } from "../cli-io.js";
import { importDocument, type ImportedTool } from "./document.js";
import { parseDuration } from "../../runtime/spec/index.js";
import { FETCH_TIMEOUT_MS, MAX_FETCH_TIMEOUT_MS, printableSource, readSource } from "./source.js";

export const IMPORT_HELP = `Usage: manifold import openapi <file|url> [--name N] [--out DIR] [--force] [--timeout D]

Turns an OpenAPI 3.0/3.1 or Swagger 2.0 document (JSON or YAML, a file or an http(s) URL) into a
tool: each operation a capability (its operationId in snake_case; method and path without one),
input fields from its path, query and header parameters and its JSON body, output fields from its
2xx JSON answer. Writes, in --out:
  <name>.yaml                the tool manifest (gen, validate, serve like any other)
  <name>.proxy.json          where each capability goes on the service (method, path, parameters)
  <name>.proxy.ts            the handlers forwarding each call, and serve(): npx tsx <name>.proxy.ts
  <name>.import-report.md    every operation and what it became; every diagnostic with file:line:col
What the format cannot express (unions, maps, non-JSON bodies, cookies) is imported as any or left
out, and listed in the report and on stderr. The service's URL: <NAME>_BASE_URL, else the document's.
Its credentials (bearer, apiKey in a header): environment variables the sidecar and report name,
<NAME>_TOKEN and <NAME>_<SCHEME>; other security schemes are diagnostics.

  --name N     the tool's name, a DNS label (default: from info.title)
  --out DIR    where the files go (default: manifests)
  --force      overwrite files that exist
  --timeout D  how long a URL may take to answer in full (default 30s, at most 10m)

A URL is read at most 32 MiB and --timeout; a non-2xx answer, a timeout or an unreachable host is a
one-line error and exit code 1.

Exit codes: 0 imported (diagnostics are warnings), 1 the document cannot be read or imported, 2 usage error.`;

const DNS_LABEL = /^[a-z][a-z0-9-]{0,62}$/;

/** The variable that names the service's base URL: `petstore` → `PETSTORE_BASE_URL`. */
export const baseUrlVariable = (name: string): string => `${name.toUpperCase().replace(/-/g, "_")}_BASE_URL`;

/** `GET /a: `, or `(2 operations: GET /a, GET /b): ` for a shared schema's problem; nothing for the document's. */
function operationsText(operations: readonly string[], quote: (operation: string) => string): string {
  if (operations.length === 0) return "";
  if (operations.length === 1) return `${quote(operations[0]!)}: `;
  return `(${operations.length} operations: ${operations.map(quote).join(", ")}): `;
}

/** Where the proxy's credentials come from: environment variables, named here so an operator can set them. */
function credentialLines(tool: ImportedTool): string[] {
  const credentials = Object.entries(tool.proxy.credentials ?? {});
  if (credentials.length === 0) return [];
  const lines = ["", "## Credentials", "", "The proxy sends these from the environment at each call (unset: not sent)."];
  for (const [scheme, { type, header, env }] of credentials) {
    const users = tool.proxy.operations.filter((o) => o.credentials?.includes(scheme)).length;
    lines.push(
      `- \`${scheme}\`: \`${env}\` as ${type === "bearer" ? "`Authorization: Bearer …`" : `the \`${header}\` header`} (${users} operation${users === 1 ? "" : "s"})`,
    );
  }
  return lines;
}

function reportText(tool: ImportedTool, source: string): string {
  const lines = [`# Import report: ${tool.name}`, "", `Source: \`${source}\` (${tool.version}).`, ""];
  const imported = tool.operations.filter((o) => o.capability !== undefined).length;
  lines.push(`${imported} of ${tool.operations.length} operations imported; ${tool.diagnostics.length} diagnostics.`, "");
  lines.push("| operation | capability |", "|---|---|");
  for (const { operation, capability } of tool.operations) lines.push(`| \`${operation}\` | ${capability === undefined ? "skipped" : `\`${capability}\``} |`);
  lines.push(...credentialLines(tool), "", "## Diagnostics", "");
  if (tool.diagnostics.length === 0) lines.push("None: everything maps.");
  for (const d of tool.diagnostics) lines.push(`- \`${d.where}\` ${operationsText(d.operations, (o) => `\`${o}\``)}${d.message.replace(/\|/g, "\\|")}`);
  return `${lines.join("\n")}\n`;
}

function proxyModule(name: string): string {
  const variable = baseUrlVariable(name);
  return `// Written by manifold import openapi: the imported tool's handlers. Re-import rather than edit.
import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createOpenApiProxy, serveManifest, type OpenApiProxyOptions, type ProxySpec } from "agent-manifold/runtime";

const spec = JSON.parse(readFileSync(new URL(${JSON.stringify(`./${name}.proxy.json`)}, import.meta.url), "utf8")) as ProxySpec;

/** The handlers: each capability forwarded to the service (${variable}, else the document's URL). */
export function createHandlers(options: OpenApiProxyOptions = {}) {
  return createOpenApiProxy(spec, { baseUrl: process.env[${JSON.stringify(variable)}], ...options });
}

/** Serves the tool from its manifest with those handlers (PORT, the registry, MCP: like any tool). */
export function serve(options: Omit<Parameters<typeof serveManifest>[1], "handlers"> = {}, proxy: OpenApiProxyOptions = {}) {
  return serveManifest(fileURLToPath(new URL(${JSON.stringify(`./${name}.yaml`)}, import.meta.url)), { ...options, handlers: createHandlers(proxy) });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const running = await serve();
  console.log(\`${name} listening on \${running.url}\`);
}
`;
}

/** The files of an import, by name, in the order they are written. */
export function importFiles(tool: ImportedTool, source: string): Record<string, string> {
  const header = `# Written by manifold import openapi from ${JSON.stringify(source).replace(/[\r\n]/g, " ")}; see ${tool.name}.import-report.md\n`;
  return {
    [`${tool.name}.yaml`]: header + stringify(tool.manifest, { lineWidth: 0, aliasDuplicateObjects: false }),
    [`${tool.name}.proxy.json`]: `${JSON.stringify(tool.proxy, null, 2)}\n`,
    [`${tool.name}.proxy.ts`]: proxyModule(tool.name),
    [`${tool.name}.import-report.md`]: reportText(tool, source),
  };
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

function parse(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: "string" },
      out: { type: "string", default: "manifests" },
      force: { type: "boolean", default: false },
      timeout: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  return { ...values, positionals };
}

/** Runs `manifold import …` (argv after `import`); returns the exit code. */
export async function runImport(argv: readonly string[], io: CliIo): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    io.err(`manifold import: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}\nRun manifold import --help for usage.\n`);
    return 2;
  }
  if (args.help) {
    io.out(`${IMPORT_HELP}\n`);
    return 0;
  }
  const [kind, source, ...extra] = args.positionals;
  const timeoutMs = args.timeout === undefined ? FETCH_TIMEOUT_MS : parseDuration(args.timeout);
  const usage =
    kind !== "openapi"
      ? `the only import is openapi, not ${JSON.stringify(kind ?? "")}`
      : source === undefined
        ? "name the OpenAPI document (a file or an http(s) URL)"
        : extra.length > 0
          ? `unexpected argument ${JSON.stringify(extra[0])}`
          : args.name !== undefined && !DNS_LABEL.test(args.name)
            ? `--name must be a DNS label (a lower-case letter, then letters, digits or '-'), not ${JSON.stringify(args.name)}`
            : timeoutMs === undefined || timeoutMs > MAX_FETCH_TIMEOUT_MS
              ? `--timeout must be a duration such as 500ms or 30s, at most 10m, not ${JSON.stringify(args.timeout)}`
              : undefined;
  if (usage !== undefined) {
    io.err(`manifold import: ${usage}\nRun manifold import --help for usage.\n`);
    return 2;
  }
  return importTo(source!, { out: args.out, name: args.name, force: args.force, timeoutMs: timeoutMs! }, io);
}

interface ImportOptions {
  readonly out: string;
  readonly name: string | undefined;
  readonly force: boolean;
  readonly timeoutMs: number;
}

async function importTo(source: string, { out, name, force, timeoutMs }: ImportOptions, io: CliIo): Promise<number> {
  let files: Record<string, string>;
  let tool: ImportedTool;
  try {
    tool = importDocument(await readSource(source, { timeoutMs }), name);
    files = importFiles(tool, printableSource(source));
  } catch (error) {
    // One line: the reason, never a stack.
    io.err(`manifold import: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}\n`);
    return 1;
  }
  const present = [];
  for (const file of Object.keys(files)) if (await exists(join(out, file))) present.push(join(out, file));
  if (present.length > 0 && !force) {
    io.err(`manifold import: ${present.join(", ")} exist; --force overwrites them\n`);
    return 1;
  }
  await mkdir(out, { recursive: true });
  for (const [file, text] of Object.entries(files)) await writeFile(join(out, file), text);
  for (const d of tool.diagnostics) io.err(`${d.where}: warning: ${operationsText(d.operations, (o) => o)}${d.message}\n`);
  const imported = tool.manifest.capabilities.length;
  io.out(
    `imported ${imported} of ${tool.operations.length} operations into ${join(out, `${tool.name}.yaml`)} (${tool.diagnostics.length} diagnostics: ${join(out, `${tool.name}.import-report.md`)})\n`,
  );
  // The names only: the operator sets them where the proxy runs.
  const variables = Object.values(tool.proxy.credentials ?? {}).map((c) => c.env);
  if (variables.length > 0) io.out(`the proxy sends the service's credentials from ${variables.join(", ")}\n`);
  return 0;
}
