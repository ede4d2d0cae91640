/**
 * Every module specifier of a folder's source files (static, dynamic and require forms), with where
 * it is and what it resolves to: the one scanner the architecture suites read imports with.
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";

export const root = resolve(new URL("../..", import.meta.url).pathname);

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["'`]([^"'`]+)["'`]/g;

export interface ModuleImport {
  /** The importing file, relative to the project root. */
  readonly from: string;
  readonly line: number;
  readonly specifier: string;
  /** A relative specifier resolved against the project root; a package name as written. */
  readonly target: string;
}

export async function moduleImports(dir: string): Promise<ModuleImport[]> {
  const found: ModuleImport[] = [];
  const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !/\.(ts|js|mjs|cjs)$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    (await readFile(path, "utf8")).split("\n").forEach((text, i) => {
      for (const [, specifier] of text.matchAll(SPECIFIER)) {
        const target = specifier!.startsWith(".") ? relative(root, resolve(entry.parentPath, specifier!)) : specifier!;
        found.push({ from: relative(root, path), line: i + 1, specifier: specifier!, target });
      }
    });
  }
  return found;
}
