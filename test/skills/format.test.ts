/**
 * The Agent Skills format as the runtime reads it (gen uses the same functions): one SKILL.md's front
 * matter and instructions, the references its instructions make, and a folder read through the real
 * file system into what the registry publishes.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createManifestFiles } from "../../runtime/manifest/index.js";
import { skillDigest } from "../../runtime/skills/digest.js";
import { readSkillFolder } from "../../runtime/skills/format.js";
import { parseSkillFile } from "../../runtime/skills/format-front-matter.js";
import { skillReferences } from "../../runtime/skills/format-references.js";
import { createMemorySkillStore } from "../../runtime/skills/store/index.js";
import { tempProject } from "../generator/load-helpers.js";

test("parseSkillFile: the index's fields, the instructions without the front matter, CRLF normalised", () => {
  const parsed = parseSkillFile(
    "---\r\nname: packing-advice\r\ndescription: '  What to pack  '\r\nlicense: MIT\r\n---\r\n\r\n\r\n# Packing\r\n\r\nCheck the weather.  \r\n\r\n",
    "packing-advice",
  );
  assert.equal(parsed.problems, []);
  assert.equal(parsed.fields, { name: "packing-advice", version: "0.0.0", description: "What to pack", license: "MIT" });
  assert.is(parsed.instructions, "# Packing\n\nCheck the weather.");
  assert.is(parsed.instructionsLine, 8, "the instructions start on line 8 of the file");
});

test("parseSkillFile: version at the top level wins over metadata.version; other keys are ignored", () => {
  const front = (lines: string) => parseSkillFile(`---\nname: a\ndescription: d\n${lines}\n---\nBody`);
  assert.is(front('metadata: { version: "1.0.0", author: me }').fields?.version, "1.0.0");
  assert.is(front('version: 2.0.0\nmetadata: { version: "1.0.0" }').fields?.version, "2.0.0");
  assert.equal(front("allowed-tools: [Read, Grep]\ncompatibility: { python: 3 }\nx: 1").problems, []);
  assert.equal(
    front("version: 1.0.0 beta").problems.map((p) => [p.code, p.position.line, p.position.column]),
    [["MF1504", 4, 10]],
  );
  assert.equal(
    front("metadata: { version: 3 }").problems.map((p) => [p.code, p.position.line]),
    [["MF1504", 4]],
    "metadata.version is reported where metadata is written",
  );
});

test("parseSkillFile: no fields while a problem stands; the name is compared with the folder only when given", () => {
  assert.is(parseSkillFile("---\nname: b\ndescription: d\n---\n", "a").fields, undefined);
  assert.equal(parseSkillFile("---\nname: b\ndescription: d\n---\n").fields?.name, "b");
  assert.equal(parseSkillFile("---\nname: a\ndescription: d\n---\n").instructions, "", "instructions may be empty");
});

test("skillReferences: Markdown links, images and definitions; URLs and anchors are not files; query and fragment dropped", () => {
  const text = [
    'See [the list](references/list.md#top) and ![map](<assets/city map.png> "Map").',
    "Also [docs](https://example.com/x.md), [here](#usage), [mail](mailto:a@b.c), [cdn](//cdn.example/x.js).",
    "[ref]: ./scripts/run.sh",
    "[Important]: always check the weather",
    "Encoded [space](references/my%20notes.md?raw=1).",
  ].join("\n");
  assert.equal(
    skillReferences(text).map((r) => [r.path, r.line, r.column]),
    [
      ["references/list.md", 1, 16],
      ["assets/city map.png", 1, 51],
      ["scripts/run.sh", 3, 8],
      ["references/my notes.md", 5, 17],
    ],
  );
});

test("skillReferences: bare paths under the format's folders or ./ and ../, not in fenced code, not /api routes", () => {
  const text = [
    "Run scripts/fetch.py, then read `references/forms.md`.",
    "Call the /api/v1/search route; pick a/b.",
    "```sh",
    "python ../tools/x.py references/in-code.md",
    "```",
    "Compare with ../other-skill/SKILL.md and ./templates/base.txt.",
  ].join("\n");
  assert.equal(
    skillReferences(text).map((r) => [r.target, r.path, r.outside, r.line, r.column]),
    [
      ["scripts/fetch.py", "scripts/fetch.py", undefined, 1, 5],
      ["references/forms.md", "references/forms.md", undefined, 1, 34],
      ["../other-skill/SKILL.md", undefined, "parent", 6, 14],
      ["./templates/base.txt", "templates/base.txt", undefined, 6, 42],
    ],
  );
});

test("skillReferences: what leaves the folder (absolute, ../ after normalising, a drive letter) is marked outside", () => {
  const outside = (target: string) => skillReferences(`[x](${target})`)[0]?.outside;
  assert.is(outside("/etc/passwd"), "absolute");
  assert.is(outside("C:/Windows/win.ini"), "absolute");
  assert.is(outside("references/../../secret.md"), "parent");
  assert.is(outside(".."), "parent");
  assert.is(outside("references/../README.md"), undefined, "inside once normalised");
  assert.is(skillReferences("[x](references/../README.md)")[0]?.path, "README.md");
});

test("readSkillFolder (real files): resources sorted, text when small UTF-8, listed by size when large or binary; the digest", async () => {
  const big = "y".repeat(64 * 1024 + 1);
  const { root, cleanup } = await tempProject({
    "s/packing/SKILL.md": "---\nname: packing\ndescription: Packing\nversion: 1.0.0\n---\nUse references/list.md.\n",
    "s/packing/references/list.md": "- socks\r\n",
    "s/packing/assets/big.txt": big,
    "s/packing/assets/nul.bin": new Uint8Array([0x61, 0x00, 0x62]),
  });
  try {
    const { skill, problems } = readSkillFolder(createManifestFiles(root), "s/packing", "travel");
    assert.equal(problems, []);
    const resources = [
      { path: "assets/big.txt", bytes: big.length },
      { path: "assets/nul.bin", bytes: 3 },
      { path: "references/list.md", bytes: 8, text: "- socks\n" },
    ];
    assert.equal(skill, {
      namespace: "travel",
      name: "packing",
      version: "1.0.0",
      description: "Packing",
      instructions: "Use references/list.md.",
      resources,
      digest: skillDigest({ instructions: "Use references/list.md.", resources }),
    });
  } finally {
    await cleanup();
  }
});

test("what gen embeds the registry publishes: characters counted alike (a description of emoji); a file name the registry would refuse is MF1509", async () => {
  const emoji = "🧳".repeat(1024);
  const MAP = "🗺".repeat(60);
  const { root, cleanup } = await tempProject({
    "s/packing/SKILL.md": `---\nname: packing\ndescription: "${emoji}"\nlicense: "${"©".repeat(256)}"\n---\nPack.\n`,
    "s/packing/references/a\\b.md": "a backslash in a name\n",
    "s/packing/references/tab\there.md": "a control character in a name\n",
    "s/emoji/SKILL.md": `---\nname: emoji\ndescription: "${emoji}"\n---\nSee the map.\n`,
    // 187 characters, 367 UTF-16 units.
    [`s/emoji/r/${MAP}/${MAP}/${MAP}.md`]: "A map.\n",
  });
  try {
    const files = createManifestFiles(root);
    const refused = readSkillFolder(files, "s/packing", "travel");
    assert.equal(
      refused.problems.map((p) => [p.code, p.message]),
      [
        ["MF1509", `"s/packing/references/a\\\\b.md": a resource path may be at most 256 characters, without control characters or '\\'`],
        ["MF1509", `"s/packing/references/tab\\there.md": a resource path may be at most 256 characters, without control characters or '\\'`],
      ],
    );
    const { skill, problems } = readSkillFolder(files, "s/emoji", "travel");
    assert.equal(problems, []);
    const published = await createMemorySkillStore().publish(skill!);
    assert.is(published.digest, skill!.digest);
    assert.is(published.description, emoji);
  } finally {
    await cleanup();
  }
});

test.run();
