/**
 * A strict TypeScript project over generated code, as a user's would be: the repository's strict flags,
 * `node_modules` linked from the repository, and `tsc --noEmit` run in a child process. Type tests
 * write `src/*.ts` beside `generated/` and assert on tsc's plain (`--pretty false`) output, because the
 * test runner's environment would otherwise make tsc print its pretty `file:line:col` form.
 */
import { spawnSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const TSC = join(REPO, "node_modules", "typescript", "bin", "tsc");

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    customConditions: ["source"],
    lib: ["ES2023"],
    types: ["node"],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    verbatimModuleSyntax: true,
    noEmit: true,
    // As the repository's tsconfig: eventsource-parser exports TypeScript sources under "source" too.
    paths: {
      "eventsource-parser": [join(REPO, "node_modules/eventsource-parser/dist/index.d.ts")],
      "eventsource-parser/stream": [join(REPO, "node_modules/eventsource-parser/dist/stream.d.ts")],
    },
  },
  include: ["generated", "src"],
};

/** Turns a folder holding `generated/` into an ESM project with strict flags and an empty `src/`. */
export async function makeStrictProject(root: string, name: string): Promise<void> {
  await writeFile(join(root, "package.json"), `{ "name": "${name}", "type": "module" }\n`);
  await symlink(join(REPO, "node_modules"), join(root, "node_modules"), "dir");
  await writeFile(join(root, "tsconfig.json"), JSON.stringify(TSCONFIG));
  await mkdir(join(root, "src"));
}

/** Runs strict `tsc` over the project: whether it passed, and what it printed. */
export function strictTsc(root: string): { ok: boolean; output: string } {
  const run = spawnSync(process.execPath, [TSC, "-p", root, "--pretty", "false"], { cwd: root, encoding: "utf8", timeout: 180_000 });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}
