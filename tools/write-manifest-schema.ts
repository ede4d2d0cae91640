/**
 * Development script (`npm run gen` runs it): writes manifest.schema.json at the package root from
 * the format and the agent features' schema fragments, and the validator precompiled from it
 * (runtime/manifest/meta-schema-validator.ts). It writes those two files and nothing else, each only
 * when its text changes (a rewrite would make dist/ look older than its sources).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { manifestSchemaText } from "../generator/manifest-schema.js";
import { manifestValidatorCode, VALIDATOR_MODULE } from "./manifest-validator-code.js";

function writeIfChanged(target: URL, text: string): void {
  let current: string | undefined;
  try {
    current = readFileSync(target, "utf8");
  } catch {
    current = undefined;
  }
  if (current !== text) writeFileSync(target, text);
}

writeIfChanged(new URL("../manifest.schema.json", import.meta.url), manifestSchemaText());
writeIfChanged(VALIDATOR_MODULE, manifestValidatorCode());
