/**
 * A module's Lua scripts are defined at its load and read on first use, so a process on the embedded
 * store reads none; creating a Redis store reads every one defined so far, so a missing script or
 * include still fails at start-up when Redis is configured, and a script defined after that is read at
 * once. One process per file: the switch to reading on definition is process-wide.
 */
import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createStore, defineLuaScript, loadLuaScript } from "../../runtime/store/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "manifold-lua-deferred-"));
mkdirSync(join(dir, "lua"));
cpSync(join(root, "runtime/discovery/lua/get-1.lua"), join(dir, "lua", "get-1.lua"));
writeFileSync(join(dir, "lua", "Bad_Name.lua"), "return 1");
const at = (name: string) => pathToFileURL(join(dir, "lua", name));

test.after(() => rmSync(dir, { recursive: true, force: true }));

test("a defined script is read on first use, with the text, name and key count the loader gives", () => {
  const source = new URL("../../runtime/tasks/lua/create-2.lua", import.meta.url);
  const deferred = defineLuaScript("tasks", source);
  const read = loadLuaScript("tasks", source);
  assert.equal([deferred.command, deferred.numberOfKeys], [read.command, read.numberOfKeys]);
  assert.is(deferred.lua, read.lua);
  assert.is(deferred.path, read.path);
  assert.is(defineLuaScript("registry", new URL("../../runtime/discovery/lua/lookup.lua", import.meta.url)).numberOfKeys, undefined);
  assert.throws(() => defineLuaScript("m", at("Bad_Name.lua")), /not named/);
});

test("a missing script is not read on the embedded store; creating a Redis store fails naming it, before connecting", () => {
  const missing = defineLuaScript("m", at("gone-1.lua"));
  assert.is(missing.numberOfKeys, 1);
  const memory = createStore({ env: {}, log: () => {} });
  assert.is(memory.kind, "memory");
  assert.throws(() => createStore({ env: { REDIS_URL: "redis://127.0.0.1:1" }, log: () => {} }), /gone-1\.lua not found/);
  // From then on a script is read where it is defined.
  assert.throws(() => defineLuaScript("m", at("also-gone-1.lua")), /also-gone-1\.lua not found/);
  assert.is(defineLuaScript("m", at("get-1.lua")).numberOfKeys, 1);
});

test.run();
