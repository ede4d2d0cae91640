/** What `manifold init` writes: every file of a template, by path, and writing them into a folder. */
import { readFileSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { MANIFOLD_VERSION } from "../../runtime/manifest/index.js";
import { packageRoot } from "../../runtime/package-root.js";
import { codeFiles } from "./templates/code.js";
import { manifestFiles, type Template } from "./templates/manifests.js";
import { projectFiles, type ProjectSettings } from "./templates/project.js";

export { projectName } from "./templates/project.js";
export { TEMPLATES, type Template } from "./templates/manifests.js";

interface OwnPackage {
  readonly engines?: { readonly node?: string };
  readonly devDependencies?: Readonly<Record<string, string>>;
}

/** The versions this agent-manifold is built and tested with: what the new project installs. */
function toolVersions(): Pick<ProjectSettings, "typescriptRange" | "tsxRange" | "nodeRange"> {
  const own = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as OwnPackage;
  return {
    typescriptRange: own.devDependencies?.["typescript"] ?? "^5.9.0",
    tsxRange: own.devDependencies?.["tsx"] ?? "^4.20.0",
    nodeRange: own.engines?.node ?? ">=20.18.1",
  };
}

/** Every file of the template, by path relative to the project (generated/ excepted: gen writes it). */
export function scaffoldFiles({ template, name }: { template: Template; name: string }): Record<string, string> {
  const settings: ProjectSettings = { name, template, manifoldVersion: MANIFOLD_VERSION, ...toolVersions() };
  return { ...projectFiles(settings), ...manifestFiles(template), ...codeFiles(template) };
}

/** The entries that make a folder not empty: anything but a fresh `git init`. */
export async function occupiedBy(dir: string): Promise<readonly string[]> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  return entries.filter((entry) => entry !== ".git").sort();
}

export async function writeScaffold(dir: string, files: Readonly<Record<string, string>>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}
