/**
 * The yaml package (about 70 modules) loaded with the first document parsed, not with every process that
 * imports the manifest layer: a running agent's feature descriptors import this layer for their normalisers
 * and never parse a manifest (start-up time). yaml is CommonJS, so a synchronous require keeps the parsers
 * synchronous; the names below are the package's, taken from it on first use.
 */
import { createRequire } from "node:module";
import type * as Yaml from "yaml";

const require = createRequire(import.meta.url);
let loaded: typeof Yaml | undefined;

export function yaml(): typeof Yaml {
  loaded ??= require("yaml") as typeof Yaml;
  return loaded;
}

export const isAlias = ((node: unknown) => yaml().isAlias(node)) as typeof Yaml.isAlias;
export const isMap = ((node: unknown) => yaml().isMap(node)) as typeof Yaml.isMap;
export const isNode = ((node: unknown) => yaml().isNode(node)) as typeof Yaml.isNode;
export const isScalar = ((node: unknown) => yaml().isScalar(node)) as typeof Yaml.isScalar;
export const isSeq = ((node: unknown) => yaml().isSeq(node)) as typeof Yaml.isSeq;
