/**
 * Every Lua script is a real file whose header states its KEYS, ARGV and output (the contract its
 * caller relies on), and the loader finds the files from the source tree and from the build.
 */
import { cpSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadLuaScript } from "../../runtime/store/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

function luaFiles(dir = join(root, "runtime")): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".lua"))
    .map((e) => join(e.parentPath, e.name));
}

test("every script has a header with Input (KEYS, ARGV) and Output, and a name that says its key count", () => {
  const files = luaFiles();
  assert.ok(files.length >= 4, `found ${files.length} scripts`);
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const header = /^--\[\[([\s\S]*?)\]\]/.exec(text)?.[1];
    assert.ok(header, `${file} opens with a --[[ … ]] block`);
    assert.match(header!, /Input:/, file);
    assert.match(header!, /KEYS\[1/, file);
    assert.match(header!, /Output:/, file);
    const fixed = /-(\d+)\.lua$/.exec(file)?.[1];
    const declared = [...header!.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
    if (fixed !== undefined) assert.is(Math.max(...declared), Number(fixed), `${file}: the header lists ${fixed} keys`);
    else assert.match(header!, /KEYS\[\d+\.\.n\]/, `${file}: a variable key count is stated as KEYS[i..n]`);
  }
});

test("the loader reads a script beside the module, or from the package's source tree when run from dist/", () => {
  const beside = loadLuaScript("registry", new URL("../../runtime/discovery/lua/unregister-2.lua", import.meta.url));
  assert.equal([beside.command, beside.numberOfKeys], ["manifold:v1:registry:unregister", 2]);
  const variable = loadLuaScript("registry", new URL("../../runtime/discovery/lua/lookup.lua", import.meta.url));
  assert.is(variable.numberOfKeys, undefined);
  // A URL under dist/ where tsc put no .lua file: found in runtime/ instead.
  const fromDist = loadLuaScript("registry", pathToFileURL(join(root, "dist/runtime/discovery/lua/get-1.lua")));
  assert.is(fromDist.path, join(root, "runtime/discovery/lua/get-1.lua"));
  assert.throws(() => loadLuaScript("x", pathToFileURL(join(root, "dist/runtime/nowhere/none-1.lua"))), /not found/);
});

test("outside the package, a missing script is an error that names it", () => {
  const dir = mkdtempSync(join(tmpdir(), "manifold-lua-"));
  try {
    mkdirSync(join(dir, "lua"));
    writeFileSync(join(dir, "lua", "Bad_Name.lua"), "return 1");
    cpSync(join(root, "runtime/discovery/lua/get-1.lua"), join(dir, "lua", "get-1.lua"));
    assert.is(loadLuaScript("m", pathToFileURL(join(dir, "lua", "get-1.lua"))).numberOfKeys, 1);
    assert.throws(() => loadLuaScript("m", pathToFileURL(join(dir, "lua", "Bad_Name.lua"))), /not named/);
    assert.throws(() => loadLuaScript("m", pathToFileURL(join(dir, "lua", "gone-1.lua"))), /gone-1\.lua not found/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
