/**
 * The `manifold` bin as a user runs it (compiled JavaScript), built from this checkout's sources into a
 * temporary package so the bench never writes the checkout's dist/ while others run tests from it.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..", "..");

/** Builds checkout `root` (default: this one) into `<dir>/pkg` and answers the path of its bin.js. */
export function buildBin(dir: string, root = ROOT): string {
  const pkg = join(dir, "pkg");
  mkdirSync(pkg, { recursive: true });
  const tsc = join(ROOT, "node_modules", ".bin", "tsc");
  const args = ["-p", join(root, "tsconfig.build.json"), "--outDir", join(pkg, "dist"), "--declaration", "false", "--sourceMap", "false"];
  // tsc emits even when another helper's edit in progress has a type error; the bench only needs the JavaScript.
  try {
    execFileSync(tsc, args, { stdio: "pipe" });
  } catch {
    // emitted all the same (noEmitOnError is off)
  }
  copyFileSync(join(root, "package.json"), join(pkg, "package.json"));
  copyFileSync(join(root, "manifest.schema.json"), join(pkg, "manifest.schema.json"));
  for (const folder of ["templates", "runtime"]) symlinkSync(join(root, folder), join(pkg, folder));
  symlinkSync(join(ROOT, "node_modules"), join(pkg, "node_modules"));
  return join(pkg, "dist", "generator", "bin.js");
}
