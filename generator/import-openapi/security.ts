/**
 * An imported document's security: `components.securitySchemes` (OpenAPI 3) or `securityDefinitions`
 * (Swagger 2), and the `security` requirements (the document's, replaced by an operation's own). A
 * bearer scheme and an apiKey sent in a header become credentials of the proxy sidecar, each read from
 * an environment variable the sidecar names (`<NAME>_TOKEN`, `<NAME>_<SCHEME>`): the secret itself is
 * never written anywhere. Every other scheme (oauth2 flows, basic, apiKey in a cookie or the query,
 * OpenID Connect, mutual TLS) is a diagnostic at the scheme, naming the operations that need it.
 */
import type { ProxyCredential } from "../../runtime/outbound/index.js";
import { snakeCase } from "./names.js";
import type { ImportDiagnostic } from "./operation.js";

type Node = Readonly<Record<string, unknown>>;
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** Headers the outbound caller sets itself: an apiKey under one of these names cannot be sent as given. */
const CALLER_HEADERS = /^(authorization|content-type|content-length|accept|host|connection|cookie|x-manifold-.*|traceparent|tracestate|baggage)$/i;

export interface SecurityContext {
  readonly root: Node;
  readonly swagger: boolean;
  readonly where: (path: readonly string[]) => string;
  readonly report: (diagnostic: ImportDiagnostic) => void;
}

export interface Security {
  /** The schemes an operation's proxy sends (one requirement whose schemes are all supported), or undefined for none. */
  credentialsFor(operation: Node, atOp: readonly string[], label: string): readonly string[] | undefined;
  /** The credentials some operation sends, by scheme name, for the sidecar. */
  credentials(): Readonly<Record<string, ProxyCredential>>;
}

/** What a scheme becomes: a credential, or why the proxy cannot send it. */
function credentialOf(scheme: Node, name: string, prefix: string, bearers: number): ProxyCredential | string {
  const type = scheme["type"];
  const http = type === "http" && typeof scheme["scheme"] === "string" ? scheme["scheme"].toLowerCase() : undefined;
  if (http === "bearer") return { type: "bearer", env: bearers === 1 ? `${prefix}_TOKEN` : `${prefix}_${envPart(name)}_TOKEN` };
  if (type === "apiKey" && scheme["in"] === "header" && typeof scheme["name"] === "string" && !CALLER_HEADERS.test(scheme["name"]))
    return { type: "header", header: scheme["name"], env: `${prefix}_${envPart(name)}` };
  if (type === "apiKey" && scheme["in"] === "header")
    return `an apiKey in the ${JSON.stringify(scheme["name"])} header, which the outbound caller sets itself: the proxy does not send it`;
  if (type === "apiKey" && scheme["in"] === "query") return "an apiKey in the query: the proxy does not send it (a credential in a URL ends up in logs)";
  if (type === "apiKey") return `an apiKey in a ${String(scheme["in"])}: the proxy does not send it`;
  if (type === "oauth2") return "oauth2: the proxy runs no flow; it sends the caller's own bearer token (MANIFOLD_OAUTH_TOKEN, or the one forwarded)";
  return `${http === undefined ? String(type) : `http ${http}`}: the proxy does not send it`;
}

const envPart = (name: string): string => snakeCase(name).toUpperCase() || "KEY";

/** Reads the schemes and hands out each operation's credentials, reporting what cannot be sent. */
export function createSecurity(context: SecurityContext, toolName: string): Security {
  const at = context.swagger ? ["securityDefinitions"] : ["components", "securitySchemes"];
  const holder = context.swagger ? context.root : isNode(context.root["components"]) ? context.root["components"] : {};
  const schemes = isNode(holder[at.at(-1)!]) ? (holder[at.at(-1)!] as Node) : {};
  const prefix = toolName.toUpperCase().replace(/-/g, "_");
  const bearers = Object.values(schemes).filter((s) => isNode(s) && s["type"] === "http" && String(s["scheme"]).toLowerCase() === "bearer").length;
  const kinds = new Map<string, ProxyCredential | string>();
  const taken = new Set([`${prefix}_BASE_URL`]);
  for (const [name, scheme] of Object.entries(schemes)) {
    if (!isNode(scheme)) continue;
    const kind = credentialOf(scheme, name, prefix, bearers);
    if (typeof kind !== "string") {
      let env = kind.env;
      for (let n = 2; taken.has(env); n++) env = `${kind.env}_${n}`;
      taken.add(env);
      kinds.set(name, { ...kind, env });
    } else kinds.set(name, kind);
  }
  const used = new Map<string, ProxyCredential>();
  return {
    credentialsFor(operation, atOp, label) {
      const own = operation["security"] !== undefined;
      const requirements = own ? operation["security"] : context.root["security"];
      if (!Array.isArray(requirements) || requirements.length === 0) return undefined;
      const names = requirements.map((r) => (isNode(r) ? Object.keys(r) : []));
      if (names.some((n) => n.length === 0)) return undefined; // `{}`: anonymous access is one of the choices
      const chosen = names.find((n) => n.every((s) => typeof kinds.get(s) === "object"));
      if (chosen !== undefined) {
        for (const s of chosen) used.set(s, kinds.get(s) as ProxyCredential);
        return chosen;
      }
      for (const s of names[0]!) {
        const kind = kinds.get(s);
        if (typeof kind === "object") continue;
        context.report({
          where: context.where(kind === undefined ? (own ? [...atOp, "security"] : ["security"]) : [...at, s]),
          operations: [label],
          message:
            kind === undefined ? `security scheme ${JSON.stringify(s)} is not defined: calls go without it` : `security scheme ${JSON.stringify(s)} is ${kind}`,
        });
      }
      return undefined;
    },
    credentials: () => Object.fromEntries(used),
  };
}
