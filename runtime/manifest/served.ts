/**
 * The manifest layer's second barrel: the few functions and constants the agent features' own manifest
 * parts call that a served agent loads too (its feature list holds them). Unlike index.ts it reaches no
 * meta-schema validator, no ajv and no loader, so serving an agent loads none of them.
 */
export { DIAGNOSTIC_CODES } from "./codes.js";
export { normaliseFields, workflowOutputFields } from "./normalise.js";
export { decodeUtf8, describeFsError } from "./read-file.js";
export { compareText } from "./values.js";
