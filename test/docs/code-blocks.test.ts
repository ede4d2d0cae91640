/**
 * The README and every page of docs/ as a reader copies from them: each ```yaml block that is a manifest
 * (it has a `kind:` line) validates with the manifest loader gen runs, and each command line in ```sh /
 * ```bash blocks that runs `manifold` names a command and flags the CLI's usage lists, and each
 * `npm run <x>` names a script of package.json. A block that is only part of a manifest says so with a
 * `# fragment` first line and is counted as skipped, never silently.
 */
import { readdirSync, readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadManifestText } from "../support/manifests.js";
import { main } from "../../generator/cli.js";

const root = new URL("../..", import.meta.url);
const documents = [
  "README.md",
  ...readdirSync(new URL("docs/", root))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

interface Block {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly text: string;
}

/** Fenced blocks at the start of a line (not indented ones inside list items, which are prose examples). */
function blocks(file: string): Block[] {
  const text = readFileSync(new URL(file, root), "utf8");
  const found: Block[] = [];
  for (const m of text.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```/gm)) {
    found.push({ file, line: text.slice(0, m.index).split("\n").length, lang: m[1]!, text: m[2]! });
  }
  return found;
}

const all = documents.flatMap(blocks);
const manifests = all.filter((b) => (b.lang === "yaml" || b.lang === "yml") && /^kind:/m.test(b.text));
/** The lock file of a `kind: mcp` / `kind: a2a` manifest is missing: gen fetches it, a document cannot hold it. */
const LOCK_MISSING = new Set(["MF1602", "MF1702"]);
const fragments = manifests.filter((b) => /^# fragment\b/.test(b.text));

/** The CLI's usage as `manifold --help` prints it: each command's flags, read from its `Usage:` lines. */
async function usage(): Promise<Map<string, Set<string>>> {
  let out = "";
  const io = { out: (s: string) => void (out += s), err: () => {}, color: false };
  await main(["--help"], io);
  for (const command of ["init", "import"]) await main([command, "--help"], io);
  const commands = new Map<string, Set<string>>();
  for (const m of out.matchAll(/^\s*(?:Usage: )?manifold ([a-z-]+)((?: [^\n]*)?)$/gm)) {
    const flags = commands.get(m[1]!) ?? new Set<string>();
    for (const f of m[2]!.matchAll(/--[a-z0-9-]+/g)) flags.add(f[0]);
    flags.add("--help");
    commands.set(m[1]!, flags);
  }
  return commands;
}

/** Command lines of shell blocks, continuations joined, comments cut, each `&&` / `;` part on its own. */
function commandLines(block: Block): { line: number; words: string[] }[] {
  const lines = block.text.replace(/\\\n/g, " ").split("\n");
  return lines.flatMap((text, i) =>
    text
      .replace(/\s#.*$/, "")
      .split(/&&|;|\|\|/)
      .map((part) => ({
        line: block.line + 1 + i,
        words: part
          .trim()
          .split(/\s+/)
          .filter((w) => !/^[A-Z_]+=/.test(w)),
      })),
  );
}

test("every manifest in the README and docs/ validates, and fragments are marked", () => {
  assert.ok(manifests.length >= 10, `found ${manifests.length} manifests`);
  const problems = manifests
    .filter((b) => !fragments.includes(b))
    .flatMap((b) => {
      // A kind: mcp / kind: a2a manifest's lock file lives beside it in a project; a document has none.
      const errors = loadManifestText(`${b.file}:${b.line}.yaml`, b.text).diagnostics.filter((d) => d.severity === "error" && !LOCK_MISSING.has(d.code));
      return errors.map((d) => `${b.file}:${b.line + d.line}: ${d.code} ${d.message}`);
    });
  assert.equal(problems, []);
  // Marked fragments are named here so a reader of the output sees what was not validated, and why.
  for (const b of fragments) console.log(`  skipped (# fragment): ${b.file}:${b.line}`);
});

test("every `manifold` command line names a command and flags the CLI knows", async () => {
  const known = await usage();
  assert.ok(known.has("gen") && known.has("init") && known.has("import"), [...known.keys()].join(", "));
  const shell = all.filter((b) => b.lang === "sh" || b.lang === "bash");
  const problems: string[] = [];
  let checked = 0;
  for (const b of shell) {
    for (const { line, words } of commandLines(b)) {
      const at = words[0] === "npx" ? (words[1] === "--no-install" ? 2 : 1) : 0;
      if (words[at] !== "manifold") continue;
      checked++;
      const [command, ...rest] = words.slice(at + 1);
      const flags = known.get(command ?? "");
      if (flags === undefined) {
        problems.push(`${b.file}:${line}: unknown command ${command}`);
        continue;
      }
      for (const word of rest) {
        const flag = word.split("=")[0]!;
        if (flag.startsWith("--") && !flags.has(flag)) problems.push(`${b.file}:${line}: manifold ${command} has no ${flag}`);
      }
    }
  }
  assert.ok(checked >= 4, `checked ${checked} command lines`);
  assert.equal(problems, []);
});

test("every `npm run <x>` in a shell block names a script of package.json", () => {
  const { scripts } = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { scripts: Record<string, string> };
  const shell = all.filter((b) => b.lang === "sh" || b.lang === "bash");
  const named = shell.flatMap((b) => [...b.text.matchAll(/npm run ([\w:-]+)/g)].map((m) => ({ file: b.file, script: m[1]! })));
  const unknown = named.filter(({ script }) => scripts[script] === undefined).map(({ file, script }) => `${file}: npm run ${script}`);
  assert.equal(unknown, []);
});

test.run();
