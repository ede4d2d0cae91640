import { toCamelCase, toPascalCase } from "../../runtime/spec/names.js";
import { schemaName } from "../../runtime/spec/openapi.js";
import type { CapabilitySpec, ComponentSpec } from "../../runtime/spec/types.js";
import { emitAgentTypes } from "./agent-parts.js";
import { generatedHeader } from "./header.js";
import { docComment } from "./ts-text.js";
import { objectType } from "./types.js";

/**
 * The manifest as an object literal. JSON is valid TypeScript and escapes every string; only keys that
 * are plain identifiers lose their quotes (in pretty JSON a line that starts with `"ident": ` is always
 * a key, since strings inside values cannot contain a raw newline).
 */
function dataLiteral(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/^(\s*)"([A-Za-z_$][A-Za-z0-9_$]*)": /gm, "$1$2: ");
}

const RUNTIME_ENTRY = "agent-manifold/runtime/codegen/v1";

/** Free-form side of a capability without a summary: any JSON object. */
const UNDECLARED = "Record<string, unknown>";

function sideType(capability: CapabilitySpec, side: "input" | "output"): string {
  const fields = capability[side];
  const what = side === "input" ? "Input" : "Output";
  const doc = docComment(`${what} of \`${capability.name}\`: ${capability.description}`);
  const name = schemaName(capability, side);
  if (fields === undefined) return `${doc}export type ${name} = ${UNDECLARED};\n`;
  const body = objectType(fields, "");
  if (body.startsWith("{")) return `${doc}export interface ${name} ${body}\n`;
  return `${doc}export type ${name} = ${body};\n`;
}

/**
 * index.ts of one component: the types, the manifest as data, and one `defineComponent` call. No
 * loops, no `try`, no HTTP: behaviour lives in the runtime (see STYLE.md, protobuf-es).
 */
export function emitComponentModule(spec: ComponentSpec, source: string): string {
  if (spec.mcpServer !== undefined) return emitRemoteModule(spec, source, { define: "defineMcpServer", what: "MCP server" });
  if (spec.a2aAgent !== undefined) return emitRemoteModule(spec, source, { define: "defineA2aAgent", what: "A2A agent" });
  const handle = toPascalCase(spec.name);
  const capabilitiesType = `${handle}Capabilities`;
  // An agent's spec always carries `agent` (normalise fills it, `uses` sorted); a tool uses nothing.
  const agent = spec.agent;
  const used = agent?.uses ?? [];
  // Namespace imports under camelCase names: nothing else in the module is camelCase, so an imported
  // handle can never clash with this component's own PascalCase types.
  const imports = used.map((name) => `import * as ${toCamelCase(name)} from "../${name}/index.js";\n`).join("");
  const parts: string[] = [
    `${generatedHeader(source)}\n`,
    `import { ${agent === undefined ? "defineComponent" : "defineAgent"}, type Client, type ComponentSpec, type Handlers${agent === undefined ? "" : ", type UsesClients"}${agent?.scheduled === true ? ", type ScheduledHandler" : ""} } from "${RUNTIME_ENTRY}";\n${imports}`,
  ];
  for (const capability of spec.capabilities) {
    parts.push(sideType(capability, "input"), sideType(capability, "output"));
  }
  const members = spec.capabilities.map(
    (c) => `${docComment(c.description, "  ")}  ${c.key}: { input: ${schemaName(c, "input")}; output: ${schemaName(c, "output")} };\n`,
  );
  parts.push(
    `${docComment(`Capability key → input and output of ${spec.name}.`)}export type ${capabilitiesType} = {\n${members.join("")}};\n`,
    `${docComment(`The handlers ${spec.name} needs: one per capability.`)}export type ${handle}Handlers = Handlers<${capabilitiesType}>;\n`,
    `${docComment(`A typed client of ${spec.name}.`)}export type ${handle}Client = Client<${capabilitiesType}>;\n`,
    `${docComment(`The manifest of ${spec.name}, as data.`)}export const ${handle}Spec: ComponentSpec = ${dataLiteral(spec)};\n`,
  );
  if (agent === undefined) {
    parts.push(`${docComment(spec.description)}export const ${handle} = defineComponent<${capabilitiesType}>(${handle}Spec);\n`);
    return parts.join("\n");
  }
  const { parts: agentParts, names } = emitAgentTypes(handle, agent);
  parts.push(...agentParts);
  const usesMembers = used.map((name) => `  ${toCamelCase(name)}: ${toCamelCase(name)}.${toPascalCase(name)},\n`).join("");
  parts.push(
    `${docComment(`The components ${spec.name} uses (\`uses:\`), by client name.`)}export const ${handle}Uses = {\n${usesMembers}};\n`,
    `${docComment(`The typed clients of what ${spec.name} uses, as \`${handle}.clients()\` answers them.`)}export type ${handle}Clients = UsesClients<typeof ${handle}Uses>;\n`,
    `${docComment(spec.description)}export const ${handle} = defineAgent<${capabilitiesType}, typeof ${handle}Uses, ${names.workflows}, ${names.tasks}${agent.orchestration.natural === undefined ? "" : ", true"}>(${handle}Spec, ${handle}Uses);\n`,
  );
  return parts.join("\n");
}

/**
 * index.ts of a `kind: mcp` or `kind: a2a` component: the same types as a tool's, the spec built from
 * the lock file, and one `define…` call. No handlers: the remote implements the capabilities.
 */
function emitRemoteModule(spec: ComponentSpec, source: string, { define, what }: { define: "defineMcpServer" | "defineA2aAgent"; what: string }): string {
  const handle = toPascalCase(spec.name);
  const capabilitiesType = `${handle}Capabilities`;
  const parts: string[] = [`${generatedHeader(source)}\n`, `import { ${define}, type Client, type ComponentSpec } from "${RUNTIME_ENTRY}";\n`];
  for (const capability of spec.capabilities) parts.push(sideType(capability, "input"), sideType(capability, "output"));
  const members = spec.capabilities.map(
    (c) => `${docComment(c.description, "  ")}  ${c.key}: { input: ${schemaName(c, "input")}; output: ${schemaName(c, "output")} };\n`,
  );
  parts.push(
    `${docComment(`Capability key → input and output of the ${what} ${spec.name}.`)}export type ${capabilitiesType} = {\n${members.join("")}};\n`,
    `${docComment(`A typed client of the ${what} ${spec.name}.`)}export type ${handle}Client = Client<${capabilitiesType}>;\n`,
    `${docComment(`The manifest and lock file of ${spec.name}, as data.`)}export const ${handle}Spec: ComponentSpec = ${dataLiteral(spec)};\n`,
    `${docComment(spec.description)}export const ${handle} = ${define}<${capabilitiesType}>(${handle}Spec);\n`,
  );
  return parts.join("\n");
}
