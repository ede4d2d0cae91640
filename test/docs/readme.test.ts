import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { MANIFOLD_VERSION } from "../../runtime/manifest/version.js";
import { ERROR_CODES } from "../../runtime/errors/codes.js";

const root = new URL("../..", import.meta.url);
// The error reference moved from the README to docs/errors.md, which the README links to.
const errorsPage = readFileSync(new URL("docs/errors.md", root), "utf8");

test("docs/errors.md's error table lists exactly the runtime's codes, with their status and category", () => {
  const rows = [...errorsPage.matchAll(/^\| `([A-Z_]+)` \| (\d+) \| (\w+) \| (true|false) \|/gm)].map((m) => [m[1], Number(m[2]), m[3], m[4] === "true"]);
  const expected = Object.entries(ERROR_CODES).map(([code, info]) => [code, info.status, info.category, info.retryable]);
  assert.equal(rows, expected);
});

test("the version stamped into generated headers is package.json's", () => {
  const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { version: string };
  assert.is(MANIFOLD_VERSION, pkg.version);
});

test.run();
