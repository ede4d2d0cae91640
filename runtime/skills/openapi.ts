/**
 * The skills feature's part of an agent's OpenAPI document: the skill registry's admin routes under
 * `/skills` (list, one version, one resource, publish, pin, retire), tagged `skills`. Emitted for
 * agents whose manifest has a `skills:` list, the agents that serve them.
 */
import {
  addErrorEnvelope,
  ERROR_RESPONSE as ERROR,
  jsonContent as json,
  schemaRef as ref,
  type AgentSpec,
  type JsonSchema,
  type OpenApiParts,
} from "../spec/index.js";

const STRING: JsonSchema = { type: "string" };
const TIME: JsonSchema = { type: "string", format: "date-time" };
const NAME: JsonSchema = { type: "string", pattern: "^[a-z0-9][a-z0-9-]{0,63}$" };
const VERSION: JsonSchema = { type: "string", pattern: "^[0-9A-Za-z.+-]{1,64}$" };
const DIGEST: JsonSchema = { type: "string", pattern: "^[0-9a-f]{64}$", description: "sha256 of the instructions and resources, hex" };

const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  SkillSummary: {
    type: "object",
    description: "One skill's versions and pin, without bodies",
    properties: {
      namespace: NAME,
      name: NAME,
      active: {
        ...VERSION,
        description: "The version a request uses now: the pinned one, else the newest not retired (semver order); absent when all are retired",
      },
      pinned: VERSION,
      description: STRING,
      versions: {
        type: "array",
        description: "Newest first, the order the active version is chosen in",
        items: {
          type: "object",
          properties: { version: VERSION, digest: DIGEST, published_at: TIME, retired_at: TIME },
          required: ["version", "digest", "published_at"],
        },
      },
    },
    required: ["namespace", "name", "description", "versions"],
  },
  SkillResource: {
    type: "object",
    properties: {
      path: { type: "string", description: "Relative to the skill folder" },
      bytes: { type: "integer", minimum: 0 },
      text: { type: "string", description: "Absent in a version's listing, and for a binary file" },
    },
    required: ["path", "bytes"],
  },
  SkillVersion: {
    type: "object",
    description: "One published version: immutable; its resources are listed by path and size, each read on its own",
    properties: {
      namespace: NAME,
      name: NAME,
      version: VERSION,
      description: STRING,
      license: STRING,
      instructions: { type: "string", description: "The Markdown body of SKILL.md" },
      resources: { type: "array", items: ref("SkillResource") },
      digest: DIGEST,
      published_at: TIME,
      retired_at: TIME,
    },
    required: ["namespace", "name", "version", "description", "instructions", "resources", "digest", "published_at"],
  },
  SkillPublish: {
    type: "object",
    properties: {
      version: VERSION,
      description: { type: "string", minLength: 1, maxLength: 1024 },
      license: { type: "string", maxLength: 256 },
      instructions: { type: "string", description: "At most 32 KiB" },
      resources: {
        type: "array",
        maxItems: 64,
        items: {
          type: "object",
          properties: { path: { type: "string", maxLength: 256 }, text: { type: "string", description: "At most 64 KiB" } },
          required: ["path", "text"],
          additionalProperties: false,
        },
      },
    },
    required: ["version", "description", "instructions"],
    additionalProperties: false,
  },
};

const error = (description: string): JsonSchema => ({ description, content: json(ref("ErrorEnvelope")) });
const NOT_FOUND = error("No such skill, version or resource (NOT_FOUND)");
const ADMIN = { "401": error("No proven identity (UNAUTHORIZED)"), "403": error("The caller is not listed in MANIFOLD_SKILL_ADMINS (FORBIDDEN)") };
const param = (name: string, schema: JsonSchema, where: "path" | "query" = "path"): JsonSchema => ({ name, in: where, required: where === "path", schema });
const SKILL_PARAMS = [param("namespace", NAME), param("name", NAME)];
const VERSION_QUERY = { ...param("version", VERSION, "query"), description: "A version; the active one when omitted" };
const summary = (description: string): JsonSchema => ({ description, content: json(ref("SkillSummary")) });

/** Adds the `/skills` paths and schemas, in a fixed order so the emitted file is byte-stable. */
export function addSkillsPaths(agent: AgentSpec, { paths, schemas }: OpenApiParts): void {
  if (agent.skills === undefined) return;
  addErrorEnvelope(schemas);
  Object.assign(schemas, SCHEMAS);
  Object.assign(paths, readPaths(), writePaths());
}

function readPaths(): Record<string, JsonSchema> {
  return {
    "/skills": {
      get: {
        operationId: "listSkills",
        summary: "The registry's skills, by namespace then name",
        tags: ["skills"],
        parameters: [param("namespace", NAME, "query")],
        responses: {
          "200": {
            description: "At most 1,000 summaries",
            content: json({ type: "object", properties: { skills: { type: "array", items: ref("SkillSummary") } }, required: ["skills"] }),
          },
          "400": ERROR,
        },
      },
    },
    "/skills/{namespace}/{name}": {
      get: {
        operationId: "getSkill",
        summary: "One version of a skill with its instructions and resource listing",
        tags: ["skills"],
        parameters: [...SKILL_PARAMS, VERSION_QUERY],
        responses: { "200": { description: "The version", content: json(ref("SkillVersion")) }, "400": ERROR, "404": NOT_FOUND },
      },
    },
    "/skills/{namespace}/{name}/resources/{path}": {
      get: {
        operationId: "getSkillResource",
        summary: "One resource of a skill version, read on its own",
        tags: ["skills"],
        parameters: [...SKILL_PARAMS, { ...param("path", STRING), description: "Relative to the skill folder; may hold '/'" }, VERSION_QUERY],
        responses: { "200": { description: "The resource", content: json(ref("SkillResource")) }, "400": ERROR, "404": NOT_FOUND },
      },
    },
  };
}

function writePaths(): Record<string, JsonSchema> {
  const version = { description: "The version as stored", content: json(ref("SkillVersion")) };
  return {
    "/skills/{namespace}/{name}/versions": {
      post: {
        operationId: "publishSkillVersion",
        summary: "Publish a version (an admin): immutable once published",
        tags: ["skills"],
        parameters: SKILL_PARAMS,
        requestBody: { required: true, content: json(ref("SkillPublish")) },
        responses: {
          "200": { ...version, description: "The same content was already published under this version: nothing changed" },
          "201": { ...version, description: "Published" },
          "400": ERROR,
          ...ADMIN,
          "409": error("The version exists with other content (CONFLICT), or the skill or namespace is full (LIMIT_EXCEEDED)"),
          "413": error("Instructions, a resource or the resources together are too large (PAYLOAD_TOO_LARGE)"),
        },
      },
    },
    "/skills/{namespace}/{name}/pin": {
      put: {
        operationId: "pinSkill",
        summary: "Pin a version (an admin), or remove the pin with null",
        tags: ["skills"],
        parameters: SKILL_PARAMS,
        requestBody: {
          required: true,
          content: json({
            type: "object",
            properties: { version: { ...VERSION, nullable: true, description: "null removes the pin" } },
            required: ["version"],
            additionalProperties: false,
          }),
        },
        responses: { "200": summary("The skill after the pin"), "400": ERROR, ...ADMIN, "404": NOT_FOUND, "409": error("The version is retired (CONFLICT)") },
      },
    },
    "/skills/{namespace}/{name}/versions/{version}/retire": {
      post: {
        operationId: "retireSkillVersion",
        summary: "Retire a version (an admin): never chosen again, still readable; a pin on it is removed",
        tags: ["skills"],
        parameters: [...SKILL_PARAMS, param("version", VERSION)],
        responses: { "200": summary("The skill after the retirement"), "400": ERROR, ...ADMIN, "404": NOT_FOUND },
      },
    },
  };
}
