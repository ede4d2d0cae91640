/**
 * The closed set of manifest diagnostic codes, shared by gen and the runtime. A code is stable once published: scripts and CI
 * annotations match on it, so a code is never reused for a different problem. docs/diagnostics.md
 * lists exactly these (a test checks it).
 *
 * MF10xx: the file and its YAML. MF12xx: the manifest meta-schema (manifest.schema.json).
 * MF13xx: meaning across fields and files. MF14xx: workflow data-flow checks; they are defined beside
 * the checker (dataflow/codes.ts), which the YAML workflow engine runs too. MF15xx: an agent's skill
 * folders (Agent Skills, `skills:`), positioned in the manifest or in the skill's `SKILL.md`.
 * MF16xx: `kind: mcp` manifests (an external MCP server) and their lock files.
 * MF17xx: `kind: a2a` manifests (a remote A2A agent) and their lock files.
 */
import { WORKFLOW_CHECK_CODES } from "./dataflow/codes.js";
/** How bad a finding is: an error stops gen, a warning does not. */
export type Severity = "error" | "warning";

export interface DiagnosticCodeInfo {
  readonly severity: Severity;
  readonly title: string;
  readonly description: string;
}

export const DIAGNOSTIC_CODES = {
  MF1001: { severity: "error", title: "Manifests folder not found", description: "The manifests folder does not exist or is not a folder." },
  MF1002: { severity: "warning", title: "No manifests", description: "The manifests folder holds no `*.yaml` or `*.yml` file." },
  MF1003: {
    severity: "error",
    title: "File cannot be read",
    description: "The file is not a regular file, is a dangling link, is a link that leaves the manifests folder, or reading it failed.",
  },
  MF1004: { severity: "error", title: "File too large", description: "The file is larger than the manifest size limit (1 MiB by default)." },
  MF1005: { severity: "error", title: "Not UTF-8", description: "The file is not valid UTF-8; the position is the first bad byte." },
  MF1006: { severity: "error", title: "YAML syntax error", description: "The file is not well-formed YAML." },
  MF1007: { severity: "error", title: "Duplicate key", description: "A mapping has the same key twice; the position is the second one." },
  MF1008: {
    severity: "error",
    title: "More than one document",
    description: "The file holds more than one YAML document; a manifest is one document per file.",
  },
  MF1009: { severity: "error", title: "Resource limit", description: "The YAML expands too many aliases or nests too deeply (protects against alias bombs)." },
  MF1010: {
    severity: "error",
    title: "Unsupported YAML tag",
    description: "A node carries a tag outside plain JSON data (e.g. `!!binary`, `!!set`, a custom `!tag`).",
  },
  MF1011: { severity: "warning", title: "YAML warning", description: "The YAML parser reported something suspicious that is not an error." },
  MF1012: { severity: "error", title: "Empty manifest", description: "The file holds no YAML document, or only comments." },
  MF1013: { severity: "error", title: "Not a mapping", description: "The top level of a manifest must be a mapping of keys to values." },
  MF1014: { severity: "error", title: "Missing kind", description: "The manifest has no `kind` key." },
  MF1015: { severity: "error", title: "Unknown kind", description: "`kind` is not one of `tool`, `agent`, `workflow`." },

  MF1201: {
    severity: "error",
    title: "Unknown key",
    description: "The key is not part of the manifest format at this place; the message lists the allowed keys.",
  },
  MF1202: {
    severity: "error",
    title: "Missing required key",
    description: "A key the format requires here is absent; the position is the mapping that lacks it.",
  },
  MF1203: { severity: "error", title: "Wrong type", description: "The value has the wrong type (e.g. a string where an integer is expected)." },
  MF1204: { severity: "error", title: "Value not allowed", description: "The value is not one of the allowed values." },
  MF1205: { severity: "error", title: "Invalid name or format", description: "A name, endpoint or duration does not match its pattern." },
  MF1206: { severity: "error", title: "Out of range", description: "A number is below its minimum or above its maximum." },
  MF1207: { severity: "error", title: "Empty value", description: "A list has fewer items, or a string fewer characters, than required." },
  MF1208: { severity: "error", title: "Duplicate list item", description: "A list that must hold distinct values repeats one; the position is the repeat." },
  MF1209: {
    severity: "error",
    title: "Key not allowed here",
    description: "A known key conflicts with another (e.g. `items` on a non-array field, both `tool` and `agent` on a step).",
  },

  MF1301: { severity: "error", title: "Duplicate manifest name", description: "Two component manifests, or two workflow manifests, have the same name." },
  MF1302: { severity: "error", title: "Component name clash", description: "Two component names derive the same TypeScript name (PascalCase)." },
  MF1303: { severity: "error", title: "Duplicate capability", description: "A component declares two capabilities with the same name." },
  MF1304: {
    severity: "error",
    title: "Capability name clash",
    description: "Two capability names of a component derive the same TypeScript name (camelCase).",
  },
  MF1305: { severity: "error", title: "Duplicate endpoint", description: "Two capabilities of a component are served at the same endpoint." },
  MF1306: {
    severity: "error",
    title: "Reserved endpoint",
    description:
      "A capability endpoint takes a route the framework serves (`/health`, `/api/capabilities`, `/openapi.json`, `/api/capabilities/<x>/schema`; on agents also `/orchestrate…`, `/api/v1…`, `/chat…`, `/query`, `/hitl…`, `/skills…`).",
  },
  MF1307: {
    severity: "error",
    title: "Duplicate field",
    description: "Two fields of one input, output or object have the same name (required and optional together).",
  },
  MF1308: { severity: "error", title: "Example does not fit", description: "A field's `example` does not match its type, `enum`, `items` or `fields`." },
  MF1309: { severity: "error", title: "Enum value does not fit", description: "An `enum` value does not match the field's type." },
  MF1310: { severity: "error", title: "Unknown component", description: "An agent's `uses` names a component that has no manifest." },
  MF1311: {
    // An error, not a warning: a typo here would let the capability run unapproved while CI passes.
    severity: "error",
    title: "Unknown sensitive capability",
    description: "A `hitl.sensitive_capabilities` entry is offered neither by the agent nor by any component it uses.",
  },
  MF1312: {
    severity: "error",
    title: "Unknown workflow",
    description: "An agent's `orchestration.workflows` or a task's `workflow` names a workflow that has no manifest.",
  },
  MF1313: { severity: "error", title: "Duplicate task type", description: "An agent declares two tasks with the same `type`." },
  MF1314: { severity: "error", title: "Duplicate step", description: "A workflow declares two steps with the same name." },
  MF1315: {
    severity: "warning",
    title: "Not generated yet",
    description:
      "The key (one of the `pending` keys of the agent feature list; none at present: every agent key is served) is valid, but this version of gen emits nothing for it yet.",
  },
  MF1316: {
    severity: "error",
    title: "Task type name clash",
    description: "Two task types of an agent derive the same TypeScript name (camelCase), the key of their typed task client.",
  },
  MF1317: {
    severity: "error",
    title: "Deployment component mismatch",
    description: "A deployment manifest names a component the network does not have, or leaves out one it has (only the shipped scheduler may be left out).",
  },
  MF1318: {
    severity: "error",
    title: "Deployment setting conflict",
    description:
      "A deployed component lacks its `entry`, sets `workers` without tasks, sets a variable the emitted manifests set themselves, or puts a credential-like name in `env` instead of `secrets`.",
  },
  MF1319: { severity: "error", title: "More than one deployment", description: "A network has one deployment manifest; this is a second one." },
  MF1320: {
    severity: "error",
    title: "Fields nest too deeply",
    description: "`fields` and `items` nest more than 16 levels below an input or output; the generated TypeScript types would not compile.",
  },
  MF1321: {
    severity: "error",
    title: "Generated name clash",
    description:
      "Two parts of a component (its name, a capability, a task type, a workflow) derive the same name in its generated module, one derives a name the module imports (`Client`, `ComponentSpec`, `Handlers`, `ScheduledHandler`) or a name it declares (`<Agent>Clients`, `<Agent>ScheduledInput`, …), or a capability would take a framework operation's OpenAPI operationId (`health`; `query` on a chat agent).",
  },
  MF1322: {
    severity: "error",
    title: "Unknown planner capability",
    description: "A `uses` entry's `planner` list names a capability its component does not offer.",
  },

  ...WORKFLOW_CHECK_CODES,

  MF1501: {
    severity: "error",
    title: "Skill folder cannot be read",
    description: "A `skills` entry names a folder that does not exist, is not a folder, or cannot be read.",
  },
  MF1502: { severity: "error", title: "No SKILL.md", description: "The skill folder holds no `SKILL.md`, or it is not a readable UTF-8 file." },
  MF1503: {
    severity: "error",
    title: "Bad front matter",
    description:
      "`SKILL.md` does not open with YAML front matter between `---` lines, or the front matter is not well-formed YAML (syntax, a key written twice) or not a mapping.",
  },
  MF1504: {
    severity: "error",
    title: "Invalid skill field",
    description:
      "`name` or `description` is missing or breaks its rule (name: 1 to 64 lower-case letters and digits in words joined by single `-`; description: 1 to 1024 characters), or `version`, `license` or `metadata` has the wrong type or form.",
  },
  MF1505: { severity: "error", title: "Skill name differs from its folder", description: "The front matter's `name` is not the name of the skill's folder." },
  MF1506: {
    severity: "error",
    title: "Duplicate skill",
    description: "An agent lists two skills of the same name in the same namespace (two folders, or one folder twice).",
  },
  MF1507: {
    severity: "error",
    title: "Resource outside the skill folder",
    description:
      "A skill folder holds a symbolic link or a special file (links may point anywhere; only the folder's own files are embedded), or its instructions link to an absolute path or to one that leaves the folder (`../`).",
  },
  MF1508: {
    severity: "warning",
    title: "Missing skill resource",
    description:
      "The instructions reference a path inside the skill folder (a Markdown link, or `scripts/…`, `references/…`, `assets/…`, `./…`) that does not exist.",
  },
  MF1509: {
    severity: "error",
    title: "Skill too large",
    description:
      "A skill or an agent's skills exceed a bound: `SKILL.md` 64 KiB, instructions 32 KiB, 64 files and 512 KiB of text per skill, folders 4 deep, resource paths 256 characters (without control characters or `\\`), 50 `skills` entries per agent.",
  },
  MF1601: {
    severity: "error",
    title: "MCP server address",
    description:
      "A `kind: mcp` manifest sets both `url` and `command` or neither, its `url` is not an http or https URL, or it sets a key of the other transport (`args`, `env` go with `command`; `auth` with `url`).",
  },
  MF1602: {
    severity: "error",
    title: "MCP lock file missing",
    description: "`<name>.mcp-lock.json` is not beside the manifest: run `manifold gen` (which fetches it) or `manifold gen --refresh-mcp`, and commit it.",
  },
  MF1603: {
    severity: "error",
    title: "MCP lock file invalid",
    description:
      "The lock file cannot be read, is not JSON of the lock format, has another `lockfileVersion`, or its `hash` does not match its tools (it was edited by hand): run `manifold gen --refresh-mcp`.",
  },
  MF1604: {
    severity: "error",
    title: "MCP tool name clash",
    description: "Two tools of the server become the same capability name (snake_case) or the same TypeScript name (camelCase).",
  },
  MF1605: {
    severity: "error",
    title: "MCP server unreachable",
    description: "`manifold gen` could not list the server's tools (it did not start, refused the connection or the token, or failed `tools/list`).",
  },
  MF1606: {
    severity: "error",
    title: "MCP tools changed",
    description:
      "`manifold gen --check --refresh-mcp`: the server's live tools differ from the lock file (the message lists tools added, removed and changed); run `manifold gen --refresh-mcp` and commit.",
  },
  MF1701: {
    severity: "error",
    title: "A2A card URL",
    description: "A `kind: a2a` manifest's `card_url` is not an http or https URL.",
  },
  MF1702: {
    severity: "error",
    title: "A2A lock file missing",
    description:
      "`<name>.a2a-lock.json` is not beside the manifest: run `manifold gen` (which fetches the agent card) or `manifold gen --refresh-a2a`, and commit it.",
  },
  MF1703: {
    severity: "error",
    title: "A2A lock file invalid",
    description:
      "The lock file cannot be read, is not JSON of the lock format, has another `lockfileVersion`, or its `hash` does not match its agent and skills (it was edited by hand): run `manifold gen --refresh-a2a`.",
  },
  MF1704: {
    severity: "error",
    title: "A2A skill name clash",
    description: "Two skills of the remote agent become the same capability name (snake_case) or the same TypeScript name (camelCase).",
  },
  MF1705: {
    severity: "error",
    title: "A2A agent card unreadable",
    description:
      "`manifold gen` could not fetch the agent card (unreachable, refused the token, not 200, larger than 4 MiB, not JSON) or the card is not usable (no name, no JSON-RPC interface, a skill without an id, more than 1000 skills).",
  },
  MF1706: {
    severity: "error",
    title: "A2A agent card changed",
    description:
      "`manifold gen --check --refresh-a2a`: the live agent card differs from the lock file (the message lists skills added, removed and changed); run `manifold gen --refresh-a2a` and commit.",
  },
} as const satisfies Record<string, DiagnosticCodeInfo>;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

export function isDiagnosticCode(value: unknown): value is DiagnosticCode {
  return typeof value === "string" && Object.hasOwn(DIAGNOSTIC_CODES, value);
}
