/**
 * The published manifest.schema.json: the format's own part assembled with the shipped agent
 * features' fragments. `npm run gen` writes it (tools/write-manifest-schema.ts) and a test holds the
 * committed file equal to this text.
 */
import { AGENT_FEATURES } from "../runtime/agent/features.js";
import { assembleManifestSchema } from "../runtime/manifest/index.js";

export function manifestSchemaText(): string {
  return `${JSON.stringify(assembleManifestSchema(AGENT_FEATURES), null, 2)}\n`;
}
