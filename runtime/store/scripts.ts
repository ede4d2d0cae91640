import { existsSync, readFileSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Cluster, Redis } from "ioredis";
import { packageRoot } from "../package-root.js";

export type RedisClient = Redis | Cluster;

/**
 * One Lua script, as a real file: `<name>-<numKeys>.lua` takes a fixed number of KEYS, `<name>.lua`
 * a variable number (the caller passes the count). Every file opens with a comment block stating its
 * KEYS, ARGV and result (BullMQ's convention), which a test checks.
 */
export interface LuaScript {
  /** The ioredis command name: `manifold:v1:<module>:<name>`. */
  readonly command: string;
  /** Absent for a script taking a variable number of keys. */
  readonly numberOfKeys?: number;
  readonly lua: string;
  readonly path: string;
}

/** tsc does not copy `.lua` files; from `dist/…` they are read from the package's source tree. */
function locate(file: URL): string {
  const path = fileURLToPath(file);
  if (existsSync(path)) return path;
  const root = packageRoot();
  const inPackage = relative(root, path);
  const fromSource = inPackage.startsWith(`dist${sep}`) ? join(root, inPackage.slice("dist".length + 1)) : undefined;
  if (fromSource !== undefined && existsSync(fromSource)) return fromSource;
  throw new Error(`internal: Lua script ${basename(path)} not found beside the module or in the package's runtime/ folder`);
}

/** Reads the file once; call at module load so a missing script fails at start-up, not mid-request. */
export function loadLuaScript(module: string, file: URL): LuaScript {
  const path = locate(file);
  const match = /^([a-z][a-z0-9-]*?)(?:-(\d+))?\.lua$/.exec(basename(path));
  if (match === null) throw new Error(`internal: Lua script ${basename(path)} is not named <name>[-<numKeys>].lua`);
  const lua = readFileSync(path, "utf8");
  return {
    command: `manifold:v1:${module}:${match[1]!}`,
    ...(match[2] === undefined ? {} : { numberOfKeys: Number(match[2]) }),
    lua,
    path,
  };
}

const defined = new WeakMap<RedisClient, Set<string>>();

type ScriptFn = (...args: (string | number)[]) => Promise<unknown>;

/**
 * Runs a script through ioredis's `defineCommand` (EVALSHA, falling back to EVAL once per connection
 * when the server lost its script cache, e.g. after a restart). Defined once per client.
 */
export function runScript(client: RedisClient, script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  let names = defined.get(client);
  if (names === undefined) defined.set(client, (names = new Set()));
  if (!names.has(script.command)) {
    client.defineCommand(script.command, { lua: script.lua, ...(script.numberOfKeys === undefined ? {} : { numberOfKeys: script.numberOfKeys }) });
    names.add(script.command);
  }
  if (script.numberOfKeys !== undefined && keys.length !== script.numberOfKeys) {
    throw new Error(`internal: ${script.command} takes ${script.numberOfKeys} keys, got ${keys.length}`);
  }
  const fn = (client as unknown as Record<string, ScriptFn>)[script.command]!;
  return script.numberOfKeys === undefined ? fn.call(client, keys.length, ...keys, ...args) : fn.call(client, ...keys, ...args);
}
