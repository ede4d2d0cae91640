/**
 * Each broken skill stops the real `manifold gen` (exit 1, nothing written) with its MF15xx code, at
 * the manifest's `skills[i]` entry for the folder as a whole and at the line in SKILL.md for what is
 * written there. Real folders, links and files in a temp project.
 */
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { agentManifest, skillFile, skillProject } from "./skills-support.js";

const MANIFEST = "manifests/agent.yaml";
const SKILL_MD = "manifests/skills/a/SKILL.md";
/** A skill `a` with its front matter and instructions. */
const skillA = (front: string, body?: string) => ({ "agent.yaml": agentManifest("[./skills/a]"), "skills/a/SKILL.md": skillFile(front, body) });
const OK = "name: a\ndescription: Does a";

interface Case {
  readonly files: Readonly<Record<string, string | Uint8Array>>;
  readonly expected: readonly [string, string, number, number][];
  /** A message fragment of the first diagnostic. */
  readonly message?: RegExp;
}

const CASES: Readonly<Record<string, Case>> = {
  "no front matter": { files: { ...skillA(OK), "skills/a/SKILL.md": "# A skill\n\nNo front matter.\n" }, expected: [["MF1503", SKILL_MD, 1, 1]] },
  "front matter never closed": {
    files: { ...skillA(OK), "skills/a/SKILL.md": "---\nname: a\ndescription: d\n\nBody.\n" },
    expected: [["MF1503", SKILL_MD, 1, 1]],
    message: /never closed/,
  },
  "front matter not YAML": { files: skillA("name: a\ndescription: d: e"), expected: [["MF1503", SKILL_MD, 3, 14]], message: /not valid YAML/ },
  "a key written twice": { files: skillA("name: a\nname: a\ndescription: d"), expected: [["MF1503", SKILL_MD, 3, 1]], message: /`name` is written twice/ },
  "front matter not a mapping": { files: skillA("- name\n- description"), expected: [["MF1503", SKILL_MD, 2, 1]], message: /must be a mapping/ },
  "front matter empty": { files: { ...skillA(OK), "skills/a/SKILL.md": "---\n---\nBody.\n" }, expected: [["MF1503", SKILL_MD, 2, 1]] },
  "name missing": { files: skillA("description: Does a"), expected: [["MF1504", SKILL_MD, 2, 1]], message: /no `name`: write `name: a`/ },
  "name not lower-case": { files: skillA("name: A\ndescription: d"), expected: [["MF1504", SKILL_MD, 2, 7]], message: /`name` "A" is invalid/ },
  "name with a double hyphen": {
    files: { "agent.yaml": agentManifest("[./skills/a--b]"), "skills/a--b/SKILL.md": skillFile("name: a--b\ndescription: d") },
    expected: [["MF1504", "manifests/skills/a--b/SKILL.md", 2, 7]],
  },
  "name differs from the folder": { files: skillA("name: b\ndescription: d"), expected: [["MF1505", SKILL_MD, 2, 7]], message: /folder is `a`/ },
  "description missing": { files: skillA("name: a"), expected: [["MF1504", SKILL_MD, 2, 1]], message: /no `description`/ },
  "description too long": { files: skillA(`name: a\ndescription: ${"x".repeat(1025)}`), expected: [["MF1504", SKILL_MD, 3, 14]], message: /1025 characters/ },
  "description not text": { files: skillA("name: a\ndescription: [x]"), expected: [["MF1504", SKILL_MD, 3, 14]], message: /must be a string, got a list/ },
  "version a number": { files: skillA(`${OK}\nversion: 1.1`), expected: [["MF1504", SKILL_MD, 4, 10]], message: /quote it to keep it text: "1.1"/ },
  "metadata not a mapping": { files: skillA(`${OK}\nmetadata: v1`), expected: [["MF1504", SKILL_MD, 4, 11]] },
  "folder missing": {
    files: { "agent.yaml": agentManifest("[./skills/gone]") },
    expected: [["MF1501", MANIFEST, 6, 10]],
    message: /skills\/gone does not exist/,
  },
  "folder is a file": { files: { "agent.yaml": agentManifest("[./skills/a]"), "skills/a": "a file" }, expected: [["MF1501", MANIFEST, 6, 10]] },
  "SKILL.md missing": {
    files: { "agent.yaml": agentManifest("[./skills/a]"), "skills/a/skill.md": skillFile(OK) },
    expected: [["MF1502", MANIFEST, 6, 10]],
    message: /found `skill\.md`: the name is upper-case SKILL\.md/,
  },
  "SKILL.md not UTF-8": {
    files: { "agent.yaml": agentManifest("[./skills/a]"), "skills/a/SKILL.md": Buffer.concat([Buffer.from("---\nname: a\n"), Buffer.from([0xc3, 0x28])]) },
    expected: [["MF1502", SKILL_MD, 3, 1]],
  },
  "instructions over 32 KiB": { files: skillA(OK, `${"word ".repeat(7000)}\n`), expected: [["MF1509", SKILL_MD, 6, 1]], message: /instructions are 35 KiB/ },
  "SKILL.md over 64 KiB": { files: skillA(OK, `${"x".repeat(65 * 1024)}\n`), expected: [["MF1509", MANIFEST, 6, 10]] },
  "more than 64 files": {
    files: { ...skillA(OK), ...Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`skills/a/references/r${i}.md`, "r\n"])) },
    expected: [["MF1509", MANIFEST, 6, 10]],
    message: /more than 64 files/,
  },
  "folders more than 4 deep": {
    files: { ...skillA(OK), "skills/a/b/c/d/e/f/deep.md": "deep\n" },
    expected: [["MF1509", MANIFEST, 6, 10]],
    message: /b\/c\/d\/e\/f is nested/,
  },
  "more than 512 KiB of text": {
    files: { ...skillA(OK), ...Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`skills/a/references/r${i}.md`, "x".repeat(60 * 1024)])) },
    expected: [["MF1509", MANIFEST, 6, 10]],
  },
  "more than 50 entries": {
    files: { ...skillA(OK), "agent.yaml": agentManifest(`\n${Array.from({ length: 51 }, (_, i) => `  - { namespace: n${i} }`).join("\n")}`) },
    expected: [["MF1509", MANIFEST, 57, 5]],
  },
  "a duplicate name in one namespace": {
    files: {
      "agent.yaml": agentManifest("\n  - ./x/a\n  - ./y/a\n  - { path: ./z/a, namespace: other }"),
      "x/a/SKILL.md": skillFile(OK),
      "y/a/SKILL.md": skillFile(OK),
      "z/a/SKILL.md": skillFile(OK),
    },
    expected: [["MF1506", MANIFEST, 8, 5]],
    message: /`trip-agent\/a` is already listed \(line 7\)/,
  },
  "a link out of the folder": {
    files: skillA(OK, "Read [the secret](../../secret.md), [hosts](/etc/hosts) and ../other/SKILL.md.\n"),
    expected: [
      ["MF1507", SKILL_MD, 6, 19],
      ["MF1507", SKILL_MD, 6, 45],
      ["MF1507", SKILL_MD, 6, 61],
    ],
    message: /`\.\.\/\.\.\/secret\.md` leaves the skill folder/,
  },
};

for (const [name, { files, expected, message }] of Object.entries(CASES)) {
  test(`${name}: gen fails with ${expected[0]![0]} at ${expected[0]![1]}:${expected[0]![2]}`, async () => {
    const project = await skillProject(files);
    try {
      const run = await project.gen();
      assert.equal(run.where, expected, run.err);
      assert.is(run.code, 1, "an error stops gen");
      if (message !== undefined) assert.match(run.diagnostics[0]!.message, message);
    } finally {
      await project.cleanup();
    }
  });
}

test("symbolic links are refused: one inside a skill (to a file outside it), and a skill folder that is a link", async () => {
  const project = await skillProject({
    "agent.yaml": agentManifest("\n  - ./skills/a\n  - ./skills/linked"),
    "skills/a/SKILL.md": skillFile(OK),
    "elsewhere/b/SKILL.md": skillFile("name: linked\ndescription: d"),
  });
  try {
    await symlink("/etc/hostname", join(project.root, "manifests/skills/a/notes.md"));
    await mkdir(join(project.root, "manifests/skills/a/references"));
    await symlink(join(project.root, "package.json"), join(project.root, "manifests/skills/a/references/pkg.json"));
    await symlink(join(project.root, "manifests/elsewhere/b"), join(project.root, "manifests/skills/linked"));
    const run = await project.gen();
    assert.equal(run.where, [
      ["MF1507", MANIFEST, 7, 5],
      ["MF1507", MANIFEST, 7, 5],
      ["MF1507", MANIFEST, 8, 5],
    ]);
    assert.equal(
      run.diagnostics.map((d) => d.message),
      [
        "manifests/skills/a/notes.md is a symbolic link; a skill embeds only its own regular files",
        "manifests/skills/a/references/pkg.json is a symbolic link; a skill embeds only its own regular files",
        "skill folder manifests/skills/linked is a symbolic link; name the folder itself (links may point anywhere)",
      ],
    );
    assert.is(run.code, 1);
  } finally {
    await project.cleanup();
  }
});

test("a YAML file inside a skill folder is a resource, not a manifest", async () => {
  const project = await skillProject({ ...skillA(OK), "skills/a/assets/broken.yaml": "kind: [not a manifest\n" });
  try {
    const run = await project.gen();
    assert.equal(run.where, []);
    assert.is(run.code, 0);
  } finally {
    await project.cleanup();
  }
});

test.run();
