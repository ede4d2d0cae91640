#!/usr/bin/env node
// madge's TypeScript parser (@typescript-eslint/typescript-estree) needs TypeScript 5's compiler
// API; the project compiles with TypeScript 7, whose package has none. Every `require("typescript")`
// made while madge runs resolves to the TypeScript 5 this wrapper depends on.
const Module = require("node:module");
const ts5 = require.resolve("typescript");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === "typescript") return ts5;
  return resolve.call(this, request, ...rest);
};
require("madge/bin/cli.js");
