import type { Document, LineCounter, YAMLError } from "yaml";
import type { DiagnosticCode } from "./codes.js";
import { START, createDiagnostic, type Position } from "./diagnostics/create.js";
import type { Diagnostic } from "./project.js";
import { positionAt, valuePosition, type SourceFile } from "./source-file.js";
import { isRecord } from "./values.js";
import { isAlias, isMap, isScalar, yaml } from "./yaml.js";

/** Aliases a manifest may expand; real manifests use a handful, an alias bomb needs thousands. */
export const MAX_ALIAS_COUNT = 100;

export interface ParsedManifest {
  readonly source: SourceFile;
  readonly diagnostics: readonly Diagnostic[];
  /** The top-level mapping as plain JS values; absent when the file has errors at this level. */
  readonly value?: Record<string, unknown>;
}

// Explicit tags that still yield plain JSON data; anything else (`!!binary`, `!!set`, `!custom`) does not.
const JSON_TAGS = new Set(["str", "int", "float", "bool", "null", "map", "seq"].map((t) => `tag:yaml.org,2002:${t}`));

function yamlErrorCode(error: YAMLError): DiagnosticCode {
  // Where the parser runs out of stack (and so which code it gives) depends on how warm the JIT is;
  // an overflow is the nesting limit whatever the code says.
  if (/maximum call stack/i.test(error.message)) return "MF1009";
  switch (error.code) {
    case "DUPLICATE_KEY":
      return "MF1007";
    case "MULTIPLE_DOCS":
      return "MF1008";
    case "RESOURCE_EXHAUSTION":
      return "MF1009";
    default:
      return "MF1006";
  }
}

function yamlErrorMessage(error: YAMLError, code: DiagnosticCode, document: Document.Parsed): string {
  if (code === "MF1007") {
    const key = keyAt(document, error.pos[0]);
    return key === undefined ? "duplicate key in a mapping" : `duplicate key \`${key}\` in a mapping`;
  }
  if (code === "MF1008") return "the file holds more than one YAML document (`---`); a manifest is one document per file";
  if (code === "MF1009") return "the YAML nests too deeply to be a manifest";
  // The parser's messages are full sentences with a capital; ours are lower-case clauses.
  return `YAML syntax error: ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`;
}

/** The one way a manifest's text becomes a YAML tree, so a tree made later (for a position) is the same tree. */
function parseTree(text: string, lineCounter: LineCounter): Document.Parsed {
  // logLevel "error": nothing printed, but "silent" would also drop the multiple-documents error.
  return yaml().parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, stringKeys: true, logLevel: "error" });
}

/**
 * A text whose value is already known (gen's parse cache: this text parsed before with no diagnostic at
 * all): its YAML tree, which only positions read, is made on first use, from the same text with the same
 * options, so a diagnostic found later has the position and wording a fresh parse gives.
 */
function knownSource(file: string, text: string): SourceFile {
  let tree: { readonly lineCounter: LineCounter; readonly document: Document.Parsed | undefined } | undefined;
  const made = (): NonNullable<typeof tree> => {
    if (tree !== undefined) return tree;
    const lineCounter = new (yaml().LineCounter)();
    let document: Document.Parsed | undefined;
    try {
      document = parseTree(text, lineCounter);
    } catch {
      document = undefined;
    }
    tree = { lineCounter, document };
    return tree;
  };
  return {
    file,
    text,
    get lineCounter() {
      return made().lineCounter;
    },
    get document() {
      return made().document;
    },
  };
}

/**
 * `known`: the value this exact text parsed to before, with no diagnostic (gen's parse cache); the text
 * is then not parsed unless a position is asked for.
 */
export function parseManifest(file: string, text: string, known?: Record<string, unknown>): ParsedManifest {
  if (known !== undefined) return { source: knownSource(file, text), diagnostics: [], value: known };
  const lineCounter = new (yaml().LineCounter)();
  let document: Document.Parsed;
  try {
    document = parseTree(text, lineCounter);
  } catch (error) {
    // The parser reports its own problems as errors; a throw here is a parser bug, still not ours to crash on.
    const reason = error instanceof Error ? error.message : String(error);
    return { source: { file, text, lineCounter }, diagnostics: [createDiagnostic("MF1006", file, START, `YAML could not be parsed: ${reason}`)] };
  }
  const source: SourceFile = { file, text, lineCounter, document };
  const diagnostics: Diagnostic[] = [];
  let exhausted = false;
  for (const error of document.errors) {
    const code = yamlErrorCode(error);
    // A stack overflow is reported once per unwound level; one report is enough.
    if (code === "MF1009" && exhausted) continue;
    exhausted ||= code === "MF1009";
    diagnostics.push(createDiagnostic(code, file, positionAt(source, error.pos[0]), yamlErrorMessage(error, code, document)));
  }
  for (const warning of document.warnings) {
    // Unresolved tags are reported by the tag check below, as errors.
    if (warning.code === "TAG_RESOLVE_FAILED") continue;
    diagnostics.push(createDiagnostic("MF1011", file, positionAt(source, warning.pos[0]), warning.message));
  }
  if (diagnostics.some((d) => d.severity === "error")) return { source, diagnostics };

  const contents = document.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) {
    return {
      source,
      diagnostics: [
        ...diagnostics,
        createDiagnostic("MF1012", file, START, "the file is empty; a manifest starts with `kind: tool`, `kind: agent` or `kind: workflow`"),
      ],
    };
  }
  const tagProblems = checkTags(source);
  if (tagProblems.length > 0) return { source, diagnostics: [...diagnostics, ...tagProblems] };
  if (!isMap(isAlias(contents) ? contents.resolve(document) : contents)) {
    return {
      source,
      diagnostics: [
        ...diagnostics,
        createDiagnostic("MF1013", file, valuePosition(source, []), "the top level of a manifest must be a mapping of keys to values"),
      ],
    };
  }

  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const message =
      error instanceof RangeError
        ? "the YAML nests too deeply to be a manifest"
        : `the YAML expands more than ${MAX_ALIAS_COUNT} aliases; a manifest this repetitive is refused (alias bomb protection)`;
    return { source, diagnostics: [...diagnostics, createDiagnostic("MF1009", file, firstAlias(source) ?? START, message)] };
  }
  // The tree check above makes this a mapping; the guard keeps the type honest. A clean text lets its tree
  // go (made again only for a position): a project's trees held to the end were most of gen's heap.
  if (isRecord(value) && diagnostics.length === 0) return { source: knownSource(file, text), diagnostics, value };
  return isRecord(value)
    ? { source, diagnostics, value }
    : { source, diagnostics: [...diagnostics, createDiagnostic("MF1013", file, START, "the top level of a manifest must be a mapping of keys to values")] };
}

/** The text of the key that starts at `offset`, for naming a duplicate key. */
function keyAt(document: Document.Parsed, offset: number): string | undefined {
  let key: string | undefined;
  const { visit } = yaml();
  visit(document, {
    Pair(_key, pair) {
      if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
        key = String(pair.key.value);
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return key;
}

function checkTags(source: SourceFile): Diagnostic[] {
  const found: Diagnostic[] = [];
  // Every explicit tag (`!x`, `!!x`, `!<…>`, a %TAG handle) is written with `!`, and only explicit tags set
  // a node's tag: a text without one needs no walk over every node (0.18 s of a 1,000-capability gen).
  if (source.document === undefined || !source.text.includes("!")) return found;
  yaml().visit(source.document, {
    Node(_key, node) {
      if (node.tag === undefined || JSON_TAGS.has(node.tag) || node.range == null) return;
      found.push(
        createDiagnostic(
          "MF1010",
          source.file,
          positionAt(source, node.range[0]),
          `unsupported YAML tag \`${shortTag(node.tag)}\`: a manifest holds plain data (strings, numbers, booleans, null, lists, mappings)`,
        ),
      );
    },
  });
  return found;
}

function shortTag(tag: string): string {
  return tag.startsWith("tag:yaml.org,2002:") ? `!!${tag.slice("tag:yaml.org,2002:".length)}` : tag;
}

function firstAlias(source: SourceFile): Position | undefined {
  let at: Position | undefined;
  if (source.document === undefined) return undefined;
  const { visit } = yaml();
  visit(source.document, {
    Alias(_key, node) {
      if (node.range != null) at = positionAt(source, node.range[0]);
      return visit.BREAK;
    },
  });
  return at;
}
