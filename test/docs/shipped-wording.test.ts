/**
 * The documents the package ships (every `.md` and template in `npm pack --dry-run`) speak to its
 * user: they do not point at things a user does not have, such as the interface specification the
 * project was built from, its seed, design-document sections or the project's issue and task numbers.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";

const root = new URL("../..", import.meta.url).pathname;

/** Phrases that mean something only inside the project's history. */
const PRIVATE = [/\bthe spec'?s?\b/i, /\bseed'?s?\b/i, /\bDESIGN(?: ?§|\.md)/, /\bissue \d+/i, /\((?:issue \d+, )?[HM]\d+\)|, [HM]\d+\)/];

test("shipped markdown and templates name no spec, seed, design section or issue number", () => {
  const result = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", timeout: 60_000 });
  assert.is(result.status, 0, result.stderr);
  const [pack] = JSON.parse(result.stdout) as { files: { path: string }[] }[];
  const documents = pack!.files.map((f) => f.path).filter((path) => /\.(md|hbs)$/.test(path));
  assert.ok(documents.length >= 20, `${documents.length} shipped documents`);
  const found = documents.flatMap((path) =>
    readFileSync(`${root}${path}`, "utf8")
      .split("\n")
      .flatMap((line, i) => PRIVATE.filter((phrase) => phrase.test(line)).map((phrase) => `${path}:${i + 1}: ${phrase.source}: ${line.trim()}`)),
  );
  assert.equal(found, []);
});

test.run();
