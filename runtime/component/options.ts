/**
 * Settings that an explicit option overrides and the environment provides otherwise. Bad values fail
 * at start-up with the variable's name, never silently fall back to a default.
 */
import { checkInteger, envFlag } from "../util/index.js";

const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** The spec's `PORT` default. A free port is an explicit `port: 0` (what tests and `npm start`'s network use). */
export const DEFAULT_PORT = 8098;

function parsePort(value: string, source: string): number {
  const port = Number(value);
  if (value.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`${source} must be an integer from 0 to 65535`);
  }
  return port;
}

/** Option, else `PORT`, else the manifest's port, else 8098. */
export function resolvePort(option: number | undefined, manifestPort: number | undefined, env = process.env): number {
  if (option !== undefined) return parsePort(String(option), "port");
  const fromEnv = env["PORT"];
  if (fromEnv !== undefined && fromEnv !== "") return parsePort(fromEnv, "PORT");
  return manifestPort ?? DEFAULT_PORT;
}

/** Option, else `HOST`, else loopback: a component is exposed only when someone asks for it. */
export function resolveHost(option: string | undefined, env = process.env): string {
  return option ?? (env["HOST"] || "127.0.0.1");
}

/**
 * Option, else `MANIFOLD_ENABLE_OPENAPI` (`true` or `false`), else the dev default: on under
 * `DEV_MODE=true` (so the dashboard's API browser has documents to show) unless the setup script's
 * `MANIFOLD_DEV_DISABLE_OPENAPI=true` stops it; else off.
 */
export function resolveEnableOpenApi(option: boolean | undefined, env = process.env): boolean {
  if (option !== undefined) return option;
  const explicit = envFlag(env, "MANIFOLD_ENABLE_OPENAPI");
  if (explicit !== undefined) return explicit;
  const disabled = envFlag(env, "MANIFOLD_DEV_DISABLE_OPENAPI") === true;
  return env["DEV_MODE"] === "true" && !disabled;
}

export function resolveBodyLimit(option: number | undefined): number {
  return checkInteger("bodyLimit", option ?? DEFAULT_BODY_LIMIT, { min: 0 });
}

/**
 * Whether `/mcp` is served: the option, else `MANIFOLD_MCP_ENABLED` (`true` or `false`, so operations
 * can turn a manifest's `mcp: true` off, or any component's on), else the manifest's `mcp`.
 */
export function resolveMcpEnabled(option: boolean | undefined, manifest: boolean | undefined, env = process.env): boolean {
  return option ?? envFlag(env, "MANIFOLD_MCP_ENABLED") ?? manifest ?? false;
}
