/**
 * Development script (`npm run gen` runs it): writes manifest.schema.json at the package root from
 * the format and the agent features' schema fragments. It writes that one file and nothing else.
 */
import { writeFileSync } from "node:fs";
import { manifestSchemaText } from "../generator/manifest-schema.js";

writeFileSync(new URL("../manifest.schema.json", import.meta.url), manifestSchemaText());
