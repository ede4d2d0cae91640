/**
 * A whole OpenAPI document → a tool manifest (as a document object), the proxy sidecar and the
 * diagnostics, deterministically: operations in the document's order, names handed out in that order.
 */
import type { ProxyCredential, ProxyOperation, ProxySpec } from "../../runtime/outbound/index.js";
import { createNamer, componentNameOf, wantedCapabilityName } from "./names.js";
import { importOperation, type CapabilityDocument, type ImportDiagnostic } from "./operation.js";
import { widenDiscriminated, widenedReached } from "./discriminator.js";
import { createSecurity } from "./security.js";
import type { SourceDocument } from "./source.js";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
/** Operations imported at most; a larger document is cut there, and the report says so. */
export const MAX_OPERATIONS = 2_000;

type Node = Readonly<Record<string, unknown>>;
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

export interface ImportedTool {
  readonly name: string;
  readonly version: "swagger 2.0" | `openapi ${string}`;
  readonly manifest: { kind: "tool"; name: string; description: string; capabilities: CapabilityDocument[] };
  readonly proxy: ProxySpec;
  readonly diagnostics: readonly ImportDiagnostic[];
  /** Every operation of the document: what it became, or undefined when skipped. */
  readonly operations: readonly { readonly operation: string; readonly capability: string | undefined }[];
}

/**
 * Adds a diagnostic, or names one more operation on the one already given at the same place for the
 * same reason: a shared schema's problem is one fact, told once with every operation it touches.
 */
function collector(diagnostics: ImportDiagnostic[]): (diagnostic: ImportDiagnostic) => void {
  const byPlace = new Map<string, { operations: string[] }>();
  return (diagnostic) => {
    const key = `${diagnostic.where}\u0000${diagnostic.message}`;
    const found = byPlace.get(key);
    if (found === undefined) {
      const entry = { ...diagnostic, operations: [...diagnostic.operations] };
      byPlace.set(key, entry);
      diagnostics.push(entry);
      return;
    }
    for (const operation of diagnostic.operations) if (!found.operations.includes(operation)) found.operations.push(operation);
  };
}

/** The absolute base URL the document names, if any (server variables at their defaults). */
function baseUrlOf(root: Node, swagger: boolean): string | undefined {
  if (swagger) {
    if (typeof root["host"] !== "string") return undefined;
    const scheme =
      Array.isArray(root["schemes"]) && root["schemes"].includes("https") ? "https" : Array.isArray(root["schemes"]) ? String(root["schemes"][0]) : "https";
    return `${scheme}://${root["host"]}${typeof root["basePath"] === "string" ? root["basePath"] : ""}`.replace(/\/+$/, "");
  }
  const [server] = Array.isArray(root["servers"]) ? root["servers"] : [];
  if (!isNode(server) || typeof server["url"] !== "string") return undefined;
  const variables = isNode(server["variables"]) ? server["variables"] : {};
  const url = server["url"].replace(/\{([^}]*)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isNode(variable) && typeof variable["default"] === "string" ? variable["default"] : whole;
  });
  return /^https?:\/\/[^{}]*$/i.test(url) ? url.replace(/\/+$/, "") : undefined;
}

/** The tool's description: the document's first paragraph, else its title. */
function descriptionOf(info: Node, name: string): string {
  const paragraph =
    typeof info["description"] === "string"
      ? info["description"]
          .trim()
          .split(/\n\s*\n/)[0]!
          .trim()
      : "";
  const text = paragraph !== "" ? paragraph : typeof info["title"] === "string" && info["title"].trim() !== "" ? info["title"].trim() : name;
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

function versionOf(root: Node, source: SourceDocument): ImportedTool["version"] {
  if (root["swagger"] === "2.0") return "swagger 2.0";
  if (typeof root["openapi"] === "string" && /^3\.[01]\./.test(root["openapi"])) return `openapi ${root["openapi"]}`;
  throw new Error(`${source.where([])} is neither OpenAPI 3.0/3.1 nor Swagger 2.0 (no "openapi: 3.x" or "swagger: 2.0")`);
}

/** The parts of an operation the import reads (parameters, body, the first 2xx answer): where a widened union can matter. */
function importedParts(pathItem: Node, operation: Node, path: string, atOp: readonly string[]): { node: unknown; at: readonly string[] }[] {
  const responses = isNode(operation["responses"]) ? operation["responses"] : {};
  const code = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort()[0];
  return [
    { node: pathItem["parameters"], at: ["paths", path, "parameters"] },
    { node: operation["parameters"], at: [...atOp, "parameters"] },
    { node: operation["requestBody"], at: [...atOp, "requestBody"] },
    ...(code === undefined ? [] : [{ node: responses[code], at: [...atOp, "responses", code] }]),
  ];
}

const credentialsEntry = (credentials: Readonly<Record<string, ProxyCredential>>) => (Object.keys(credentials).length === 0 ? {} : { credentials });

/** Converts the document; throws an Error when it is not one this imports. */
export function importDocument(source: SourceDocument, name?: string): ImportedTool {
  const { root, widened } = widenDiscriminated(source.value);
  const version = versionOf(root, source);
  const swagger = version === "swagger 2.0";
  const info = isNode(root["info"]) ? root["info"] : {};
  const toolName = name ?? componentNameOf(info["title"]);
  const diagnostics: ImportDiagnostic[] = [];
  const context = { root, swagger, where: source.where, report: collector(diagnostics) };
  const capabilities: CapabilityDocument[] = [];
  const proxied: ProxyOperation[] = [];
  const operations: { operation: string; capability: string | undefined }[] = [];
  const nameFor = createNamer();
  const security = createSecurity(context, toolName);
  const firstWith = new Map<string, string>();
  const paths = isNode(root["paths"]) ? root["paths"] : {};
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isNode(pathItem) || !path.startsWith("/")) continue;
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!isNode(operation)) continue;
      const label = `${method.toUpperCase()} ${path}`;
      const atOp = ["paths", path, method];
      if (operations.length >= MAX_OPERATIONS) {
        diagnostics.push({ where: source.where(atOp), operations: [label], message: `past ${MAX_OPERATIONS} operations: skipped` });
        operations.push({ operation: label, capability: undefined });
        continue;
      }
      if (method === "trace") {
        diagnostics.push({ where: source.where(atOp), operations: [label], message: "TRACE is not proxied: skipped" });
        operations.push({ operation: label, capability: undefined });
        continue;
      }
      const wanted = wantedCapabilityName(operation["operationId"], method, path);
      const capability = nameFor(wanted);
      if (capability !== wanted) {
        diagnostics.push({
          where: source.where(operation["operationId"] === undefined ? atOp : [...atOp, "operationId"]),
          operations: [label],
          message: `its name ${wanted} is taken by ${firstWith.get(wanted) ?? "another operation"}; imported as ${capability} (did you mean to give it an operationId of its own?)`,
        });
      } else {
        firstWith.set(wanted, label);
      }
      const imported = importOperation({ capability, method, path, pathItem, operation, atPath: ["paths", path], atOp }, context);
      operations.push({ operation: label, capability: imported?.capability.name });
      if (imported === undefined) continue;
      capabilities.push(imported.capability);
      const reached = widenedReached(importedParts(pathItem, operation, path, atOp), root, widened);
      for (const at of reached) context.report({ where: source.where(at), operations: [label], message: widened.get(JSON.stringify(at))! });
      const credentials = security.credentialsFor(operation, atOp, label);
      proxied.push(credentials === undefined ? imported.proxy : { ...imported.proxy, credentials });
    }
  }
  if (capabilities.length === 0) throw new Error(`${source.name} has no operation this can import (${diagnostics.length} skipped)`);
  const baseUrl = baseUrlOf(root, swagger);
  return {
    name: toolName,
    version,
    manifest: { kind: "tool", name: toolName, description: descriptionOf(info, toolName), capabilities },
    proxy: { version: 1, ...(baseUrl === undefined ? {} : { baseUrl }), operations: proxied, ...credentialsEntry(security.credentials()) },
    diagnostics,
    operations,
  };
}
