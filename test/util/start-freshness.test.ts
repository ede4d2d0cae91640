/**
 * `npm start` builds only when it must (tools/start-freshness.mjs): it runs the example from dist-example/,
 * which imports the package's runtime from dist/. Driven on a folder laid out like the repository.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { entryOf, needsBuild, stampOf } from "../../tools/start-freshness.mjs";

const SOURCE = new Date("2026-01-01T00:00:00Z");
const BUILT = new Date("2026-01-01T00:10:00Z");

function write(path: string, at: Date): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, "");
  utimesSync(path, at, at);
}

/** A checkout built after its sources were last saved. */
function builtCheckout(): string {
  const root = mkdtempSync(join(tmpdir(), "start-freshness-"));
  for (const file of ["generator/cli.ts", "runtime/index.ts", "generated/index.ts", "manifests/travel/start.ts", "package.json", "tsconfig.json"]) {
    write(join(root, file), SOURCE);
  }
  write(join(root, "dist/runtime/index.js"), BUILT);
  write(entryOf(root), BUILT);
  write(stampOf(root), BUILT);
  return root;
}

test("a build newer than every source is run as is", () => {
  const root = builtCheckout();
  try {
    assert.is(needsBuild(root), false);
  } finally {
    rmSync(root, { recursive: true });
  }
});

test("dist/ removed on its own is built again (the example imports the runtime from it)", () => {
  const root = builtCheckout();
  try {
    rmSync(join(root, "dist"), { recursive: true });
    assert.is(needsBuild(root), true);
  } finally {
    rmSync(root, { recursive: true });
  }
});

test("a missing entry or stamp is built again", () => {
  for (const remove of [entryOf, stampOf]) {
    const root = builtCheckout();
    try {
      rmSync(remove(root));
      assert.is(needsBuild(root), true, remove.name);
    } finally {
      rmSync(root, { recursive: true });
    }
  }
});

test("a source or a build config saved after the build began is built again", () => {
  for (const file of ["runtime/index.ts", "manifests/travel/start.ts", "tsconfig.json"]) {
    const root = builtCheckout();
    try {
      const later = new Date(BUILT.getTime() + 1000);
      utimesSync(join(root, file), later, later);
      assert.is(needsBuild(root), true, file);
    } finally {
      rmSync(root, { recursive: true });
    }
  }
});

test.run();
