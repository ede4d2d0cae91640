import type { IncomingMessage } from "node:http";
import { buildOpenApi, type OpenApiAddition, type OpenApiAuth } from "../spec/index.js";
import type { ComponentSpec } from "../spec/index.js";

/**
 * `/openapi.json` names the URL it was reached through, which behind a proxy comes from
 * `X-Forwarded-*` headers. Those are caller-controlled, so each value must look like what it claims
 * to be before it goes into the document; a value that does not is ignored, never escaped and kept.
 */

const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
/** A DNS name, an IPv4 address or a bracketed IPv6 address, with an optional port. */
const HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?$`);
/** One path segment: unreserved characters and percent escapes only. */
const SEGMENT = /^(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+$/;
const MAX_HOST = 261;
const MAX_PREFIX = 1024;

/** The first value of a header a proxy chain may have turned into a comma-separated list. */
function first(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const comma = raw.indexOf(",");
  return (comma === -1 ? raw : raw.slice(0, comma)).trim();
}

export function validHost(value: string | undefined): string | undefined {
  return value !== undefined && value.length <= MAX_HOST && HOST.test(value) ? value : undefined;
}

/** `api/v1/` → `/api/v1`; `/` → ``; anything with other characters, `.` or `..` segments → undefined. */
export function normalisePrefix(value: string | undefined): string | undefined {
  if (value === undefined || value.length > MAX_PREFIX) return undefined;
  const segments = value.split("/").filter((s) => s.length > 0);
  for (const segment of segments) {
    if (!SEGMENT.test(segment) || segment === "." || segment === "..") return undefined;
  }
  return segments.length === 0 ? "" : `/${segments.join("/")}`;
}

function socketHost(req: IncomingMessage): string {
  const { localAddress = "127.0.0.1", localPort } = req.socket;
  const address = localAddress.includes(":") ? `[${localAddress}]` : localAddress;
  return localPort === undefined ? address : `${address}:${localPort}`;
}

/** The base URL a caller used to reach this component, proxies included. */
export function publicUrl(req: IncomingMessage): string {
  const { headers } = req;
  const forwardedProto = first(headers["x-forwarded-proto"])?.toLowerCase();
  const proto = forwardedProto === "http" || forwardedProto === "https" ? forwardedProto : "encrypted" in req.socket ? "https" : "http";
  const host = validHost(first(headers["x-forwarded-host"])) ?? validHost(headers.host) ?? socketHost(req);
  const prefix = normalisePrefix(first(headers["x-forwarded-prefix"])) ?? "";
  return `${proto}://${host}${prefix}`;
}

/** Built per request (the server URL differs per caller); the rest of the document is cheap to build. */
export function openApiBody(spec: ComponentSpec, req: IncomingMessage, additions: readonly OpenApiAddition[] = [], auth: OpenApiAuth = "none"): string {
  return JSON.stringify(buildOpenApi(spec, { servers: [publicUrl(req)], additions, auth }));
}
