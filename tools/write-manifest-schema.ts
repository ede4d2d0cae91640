/**
 * Development script (`npm run gen` runs it): writes manifest.schema.json at the package root from
 * the format and the agent features' schema fragments. It writes that one file and nothing else, and
 * only when its text changes (a rewrite would make dist/ look older than its sources).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { manifestSchemaText } from "../generator/manifest-schema.js";

const target = new URL("../manifest.schema.json", import.meta.url);
const text = manifestSchemaText();
let current: string | undefined;
try {
  current = readFileSync(target, "utf8");
} catch {
  current = undefined;
}
if (current !== text) writeFileSync(target, text);
