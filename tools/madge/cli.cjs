#!/usr/bin/env node
const Module = require("node:module");
const path = require("node:path");
const ts5 = require.resolve("typescript");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === "typescript") return ts5;
  return resolve.call(this, request, ...rest);
};
require("madge/bin/cli.js");
