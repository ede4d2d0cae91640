import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
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

/** A directive line, BullMQ's syntax: `--- @include "includes/<name>"` (`.lua` optional), relative to the file it is in. */
const INCLUDE = /^---[ \t]*@include\b(.*)$/gm;
const INCLUDE_TARGET = /^[ \t]+"([^"]+)"[ \t]*\r?$/;

/**
 * A file's text with every include directive replaced by the included file's (expanded) text, in
 * place, so a helper is defined before the lines after the directive use it. Each include goes in
 * once per script (a second directive for it becomes a comment: Lua `local`s above are still in
 * scope), so helpers shared by several includes are not redefined. `chain` is the files open from the
 * script down to this one, for the cycle check and for error messages.
 */
function expandIncludes(path: string, chain: readonly string[], included: Set<string>): string {
  const root = dirname(chain[0] ?? path);
  const show = (files: readonly string[]) => files.map((f) => relative(root, f)).join(" → ");
  return readFileSync(path, "utf8").replace(INCLUDE, (line, rest: string) => {
    const target = INCLUDE_TARGET.exec(rest)?.[1];
    if (target === undefined)
      throw new Error(`Lua include: ${show([...chain, path])} has a malformed directive ${JSON.stringify(line)}; write --- @include "includes/<name>"`);
    const file = resolve(dirname(path), target.endsWith(".lua") ? target : `${target}.lua`);
    const opened = [...chain, path];
    if (opened.includes(file)) throw new Error(`Lua include cycle: ${show([...opened, file])}`);
    if (included.has(file)) return `-- @include "${target}": already above`;
    if (!existsSync(file)) throw new Error(`Lua include "${target}" not found (${show([...opened, file])}); looked for ${file}`);
    included.add(file);
    return expandIncludes(file, opened, included).replace(/\s+$/, "");
  });
}

/**
 * Reads the file once, with its includes expanded (the text Redis runs, and whose SHA1 EVALSHA
 * uses). A module defines its scripts with `defineLuaScript`, which calls this on first use or
 * when a Redis store is created, so a missing script or include fails at start-up, not mid-request.
 */
export function loadLuaScript(module: string, file: URL): LuaScript {
  const path = locate(file);
  const match = /^([a-z][a-z0-9-]*?)(?:-(\d+))?\.lua$/.exec(basename(path));
  if (match === null) throw new Error(`internal: Lua script ${basename(path)} is not named <name>[-<numKeys>].lua`);
  const lua = expandIncludes(path, [], new Set());
  return {
    command: `manifold:v1:${module}:${match[1]!}`,
    ...(match[2] === undefined ? {} : { numberOfKeys: Number(match[2]) }),
    lua,
    path,
  };
}

/** Scripts defined at module load and not read yet: a Redis store's creation reads them all (`readLuaScripts`). */
const unread = new Set<() => LuaScript>();
/** Set once a Redis store exists: from then on a script is read where it is defined, as it was before the deferral. */
let readOnDefine = false;

/**
 * A module's script, read (with its includes) on first use rather than at module load: a process on the
 * embedded store runs no Lua and so reads none (start-up time). A process that creates a Redis store reads
 * every script defined so far right then (`readLuaScripts`), so a missing script or include still fails at
 * start-up, not mid-request; one defined after that (a module loaded on a first request) is read at once.
 */
export function defineLuaScript(module: string, file: URL): LuaScript {
  let read: LuaScript | undefined;
  const load = (): LuaScript => {
    if (read === undefined) {
      read = loadLuaScript(module, file);
      unread.delete(load);
    }
    return read;
  };
  const name = /^([a-z][a-z0-9-]*?)(?:-(\d+))?\.lua$/.exec(basename(fileURLToPath(file)));
  // A name that does not parse is read now, for loadLuaScript's error.
  if (readOnDefine || name === null) return load();
  unread.add(load);
  return {
    // The name's parts need no file.
    command: `manifold:v1:${module}:${name[1]!}`,
    ...(name[2] === undefined ? {} : { numberOfKeys: Number(name[2]) }),
    get lua() {
      return load().lua;
    },
    get path() {
      return load().path;
    },
  };
}

/** Reads every script defined and not read yet, and every later one where it is defined: called when a Redis store is created. */
export function readLuaScripts(): void {
  readOnDefine = true;
  for (const load of [...unread]) load();
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
