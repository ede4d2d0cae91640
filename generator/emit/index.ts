import type { Project } from "../../runtime/manifest/index.js";
import { emitComponentModule } from "./component-module.js";
import { emitOpenApi, emitSchemas } from "./json-files.js";
import { emitFolderReadme } from "./readme.js";

/** Every file `manifold gen` writes, keyed by path relative to the output folder, in sorted order. */
export function emitProject(project: Project, { manifestsDir }: { manifestsDir: string }): Map<string, string> {
  const files = new Map<string, string>();
  const components = project.manifests.filter((m) => m.component !== undefined);
  for (const manifest of components) {
    const spec = manifest.component!;
    files.set(`${spec.name}/openapi.json`, emitOpenApi(spec));
    for (const [path, text] of emitSchemas(spec)) files.set(`${spec.name}/${path}`, text);
    files.set(`${spec.name}/index.ts`, emitComponentModule(spec, manifest.file));
  }
  files.set("README.md", emitFolderReadme({ manifestsDir, components: components.map((m) => ({ name: m.name, kind: m.kind, file: m.file })) }));
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
