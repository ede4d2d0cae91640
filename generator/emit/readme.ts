import { readFileSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import { packageRoot } from "../../runtime/package-root.js";
import { MANIFOLD_VERSION } from "../../runtime/manifest/index.js";

export interface FolderReadmeInput {
  readonly manifestsDir: string;
  readonly components: readonly { readonly name: string; readonly kind: string; readonly file: string }[];
}

let template: Handlebars.TemplateDelegate | undefined;

/** README.md of the output folder; it also marks the folder as manifold's, so gen may prune it. */
export function emitFolderReadme(input: FolderReadmeInput): string {
  template ??= Handlebars.compile(readFileSync(join(packageRoot(), "templates", "generated-readme.md.hbs"), "utf8"), { strict: true });
  return template({ ...input, version: MANIFOLD_VERSION });
}
