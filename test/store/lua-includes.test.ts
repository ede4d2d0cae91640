/**
 * The loader's include directive (`--- @include "includes/<name>"`, BullMQ's syntax): expanded once
 * at load, in place, each include at most once per script, and a missing include or a cycle stops the
 * load with the chain of files that led to it. Fixtures are temp files, so each case shows its tree.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadLuaScript } from "../../runtime/store/index.js";

let dir = "";
test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), "manifold-lua-includes-"));
});
test.after.each(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path → text) under the temp folder and loads `script` from it. */
function load(script: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return loadLuaScript("m", pathToFileURL(join(dir, script)));
}

const count = (text: string, part: string) => text.split(part).length - 1;

/** The message of what `run` throws (failing the test if nothing is thrown), so a mismatch shows it. */
function thrown(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.instance(error, Error);
    return (error as Error).message;
  }
  assert.unreachable("expected an Error, nothing was thrown");
  return "";
}

test("a directive is replaced, in place, by the include's text; the rest of the script is kept", () => {
  const script = load("get-1.lua", {
    "get-1.lua": '-- head\n--- @include "includes/double"\nreturn double(1)\n',
    "includes/double.lua": "local function double(n) return n * 2 end\n",
  });
  assert.is(script.lua, "-- head\nlocal function double(n) return n * 2 end\nreturn double(1)\n");
  assert.equal([script.command, script.numberOfKeys], ["manifold:v1:m:get", 1]);
});

test("the .lua suffix is optional, and stray spaces around the directive are fine", () => {
  const script = load("s-1.lua", {
    "s-1.lua": '---   @include   "includes/a.lua"  \nreturn a\n',
    "includes/a.lua": "local a = 1",
  });
  assert.is(script.lua, "local a = 1\nreturn a\n");
});

test("an include included twice appears once: a repeated directive and a shared nested include", () => {
  const script = load("s-2.lua", {
    "s-2.lua": ['--- @include "includes/left"', '--- @include "includes/right"', '--- @include "includes/left"', "return left() + right()"].join("\n"),
    "includes/left.lua": '--- @include "common"\nlocal function left() return common end',
    "includes/right.lua": '--- @include "common"\nlocal function right() return common end',
    "includes/common.lua": "local common = 21",
  });
  assert.is(count(script.lua, "local common = 21"), 1, script.lua);
  assert.is(count(script.lua, "local function left"), 1, script.lua);
  // The shared include lands where it was first asked for, above everything that uses it.
  assert.ok(script.lua.indexOf("local common") < script.lua.indexOf("local function left"), script.lua);
  assert.ok(script.lua.indexOf("local function left") < script.lua.indexOf("local function right"), script.lua);
  assert.not.match(script.lua, /^---\s*@include/m, "no directive is left for Redis");
});

test("a nested include is resolved relative to the file that includes it, and expanded too", () => {
  const script = load("s-1.lua", {
    "s-1.lua": '--- @include "includes/outer"\nreturn outer()',
    "includes/outer.lua": '--- @include "inner/deep"\nlocal function outer() return deep end',
    "includes/inner/deep.lua": "local deep = 'deep'",
  });
  assert.is(script.lua, "local deep = 'deep'\nlocal function outer() return deep end\nreturn outer()");
});

test("a missing include throws, naming the include and the chain of files that asked for it", () => {
  const direct = thrown(() => load("s-1.lua", { "s-1.lua": '--- @include "includes/gone"\nreturn 1' }));
  assert.is(direct, `Lua include "includes/gone" not found (s-1.lua → includes/gone.lua); looked for ${join(dir, "includes", "gone.lua")}`);
  const nested = thrown(() => load("t-1.lua", { "t-1.lua": '--- @include "includes/a"', "includes/a.lua": '--- @include "missing"' }));
  assert.is(nested, `Lua include "missing" not found (t-1.lua → includes/a.lua → includes/missing.lua); looked for ${join(dir, "includes", "missing.lua")}`);
});

test("a cycle throws with the whole loop; so does a file including itself or its script", () => {
  const cases: [Record<string, string>, string][] = [
    [
      { "s-1.lua": '--- @include "includes/a"', "includes/a.lua": '--- @include "b"', "includes/b.lua": '--- @include "a"' },
      "Lua include cycle: s-1.lua → includes/a.lua → includes/b.lua → includes/a.lua",
    ],
    [{ "s-1.lua": '--- @include "includes/a"', "includes/a.lua": '--- @include "a"' }, "Lua include cycle: s-1.lua → includes/a.lua → includes/a.lua"],
    [{ "s-1.lua": '--- @include "includes/a"', "includes/a.lua": '--- @include "../s-1"' }, "Lua include cycle: s-1.lua → includes/a.lua → s-1.lua"],
  ];
  for (const [files, message] of cases) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    assert.is(
      thrown(() => load("s-1.lua", files)),
      message,
    );
  }
});

test("a directive without a quoted path is an error, not a comment Redis would silently skip", () => {
  assert.is(
    thrown(() => load("s-1.lua", { "s-1.lua": "--- @include includes/a\nreturn 1" })),
    'Lua include: s-1.lua has a malformed directive "--- @include includes/a"; write --- @include "includes/<name>"',
  );
  // Ordinary comments that mention the word are left alone.
  const plain = "-- see @include below\n--- @included is not a directive\nreturn 1";
  assert.is(load("s-2.lua", { "s-2.lua": plain }).lua, plain);
});

test("the task scripts load with every include expanded, each defined once", () => {
  const folder = new URL("../../runtime/tasks/lua/", import.meta.url);
  for (const name of readdirSync(folder).filter((n) => n.endsWith(".lua"))) {
    const { lua } = loadLuaScript("tasks", new URL(name, folder));
    assert.not.match(lua, /^---\s*@include/m, name);
    for (const fn of ["serverTimeMs", "decodeRecord", "encodeRecord", "readRecord", "leaseCheck", "finishRecord", "wakeDequeuer"]) {
      assert.ok(count(lua, `local function ${fn}(`) <= 1, `${name} defines ${fn} at most once`);
    }
  }
});

test.run();
