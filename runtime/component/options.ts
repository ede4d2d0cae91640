/**
 * Settings that an explicit option overrides and the environment provides otherwise. Bad values fail
 * at start-up with the variable's name, never silently fall back to a default.
 */
import { checkInteger } from "../util/index.js";

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

/** Option, else `MANIFOLD_ENABLE_OPENAPI` (`true` or `false`), else off. */
export function resolveEnableOpenApi(option: boolean | undefined, env = process.env): boolean {
  if (option !== undefined) return option;
  const value = env["MANIFOLD_ENABLE_OPENAPI"];
  if (value === undefined || value === "" || value === "false") return false;
  if (value === "true") return true;
  throw new RangeError("MANIFOLD_ENABLE_OPENAPI must be true or false");
}

export function resolveBodyLimit(option: number | undefined): number {
  return checkInteger("bodyLimit", option ?? DEFAULT_BODY_LIMIT, { min: 0 });
}
