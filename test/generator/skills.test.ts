/**
 * Skills in the agent manifest, through the real `manifold gen` over real folders: a good skill is
 * embedded in the generated spec (index, instructions, resources, digest), `gen --check` sees a
 * SKILL.md edit, packs written for other tools load unchanged, and each broken skill stops gen with
 * its MF15xx code at the right file and line.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { skillDigest } from "../../runtime/skills/digest.js";
import type { SkillsSpec } from "../../runtime/skills/manifest.js";
import { agentManifest, skillFile, skillProject, type SkillProject } from "./skills-support.js";

const PACKING = skillFile(
  "name: packing-advice\ndescription: What to pack for a destination's weather\nversion: 1.2.0\nlicense: MIT",
  "# Packing advice\n\nCheck the destination's weather first, then go through [the checklist](references/packing-checklist.md).\n",
);
const CHECKLIST = "# Checklist\r\n\r\n- rain jacket\r\n";

/** The agent's embedded spec, read back from the generated module (a JSON-like object literal). */
async function embeddedSkills(project: SkillProject): Promise<SkillsSpec | undefined> {
  const text = await project.generated("trip-agent/index.ts");
  const literal = /export const TripAgentSpec: ComponentSpec = (\{[\s\S]*?\n\});\n/.exec(text)?.[1];
  assert.ok(literal, "the generated module holds the spec literal");
  // Through JSON: objects made in another context have other constructors, which deep equality compares.
  const spec = JSON.parse(JSON.stringify(runInNewContext(`(${literal})`))) as { agent: { skills?: SkillsSpec } };
  return spec.agent.skills;
}

async function withProject(files: Readonly<Record<string, string | Uint8Array>>, body: (project: SkillProject) => Promise<void>): Promise<void> {
  const project = await skillProject(files);
  try {
    await body(project);
  } finally {
    await project.cleanup();
  }
}

test("a good skill is embedded in the generated spec: index, instructions, resources sorted, digest; namespaces as listed", async () => {
  await withProject(
    {
      "agent.yaml": agentManifest("\n  - ./skills/packing-advice\n  - { namespace: travel }"),
      "skills/packing-advice/SKILL.md": PACKING,
      "skills/packing-advice/references/packing-checklist.md": CHECKLIST,
      "skills/packing-advice/assets/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]),
      "skills/packing-advice/assets/settings.yaml": "not: a manifest\n",
      "skills/packing-advice/.DS_Store": "hidden",
    },
    async (project) => {
      const run = await project.gen();
      assert.equal(run.where, [], run.err);
      assert.is(run.code, 0, run.err);
      const skills = await embeddedSkills(project);
      const instructions = "# Packing advice\n\nCheck the destination's weather first, then go through [the checklist](references/packing-checklist.md).";
      const resources = [
        { path: "assets/logo.png", bytes: 6 },
        { path: "assets/settings.yaml", bytes: 16, text: "not: a manifest\n" },
        // CRLF line ends are normalised: a Windows checkout embeds (and digests) the same text.
        { path: "references/packing-checklist.md", bytes: 27, text: "# Checklist\n\n- rain jacket\n" },
      ];
      assert.equal(skills, {
        namespaces: ["trip-agent", "travel"],
        bundled: [
          {
            namespace: "trip-agent",
            name: "packing-advice",
            version: "1.2.0",
            description: "What to pack for a destination's weather",
            license: "MIT",
            instructions,
            resources,
            digest: skillDigest({ instructions, resources }),
          },
        ],
      });
    },
  );
});

test("gen --check reports the output stale once a SKILL.md or a resource changes", async () => {
  await withProject(
    {
      "agent.yaml": agentManifest("[./skills/packing-advice]"),
      "skills/packing-advice/SKILL.md": PACKING,
      "skills/packing-advice/references/packing-checklist.md": CHECKLIST,
    },
    async (project) => {
      assert.is((await project.gen()).code, 0);
      assert.is((await project.gen({ check: true })).code, 0, "up to date right after gen");
      const skill = join(project.root, "manifests/skills/packing-advice");
      await writeFile(join(skill, "SKILL.md"), PACKING.replace("weather first", "forecast first"));
      const stale = await project.gen({ check: true });
      assert.is(stale.code, 1);
      assert.match(stale.err, /stale\s+\S*trip-agent\/index\.ts/);
      assert.is((await project.gen()).code, 0);
      await writeFile(join(skill, "references/packing-checklist.md"), "- umbrella\n");
      assert.is((await project.gen({ check: true })).code, 1, "a resource is content too");
    },
  );
});

test("an Anthropic-style pack loads unchanged: extra front-matter keys allowed and left out, version from metadata", async () => {
  const front = [
    "name: pdf-forms",
    "description: Fill in PDF forms. Use when the user asks to complete a form.",
    "license: Complete terms in LICENSE.txt",
    "allowed-tools: Read, Bash(python:*)",
    "compatibility: Requires python3",
    "metadata:",
    "  author: example-org",
    '  version: "2.0.1"',
    "x-vendor-flag: true",
  ].join("\n");
  const body = "Run `scripts/fill.py` with the form, see references/forms.md.\n\n```bash\npython ../shared/tool.py /etc/hosts\n```\n";
  await withProject(
    {
      "agent.yaml": agentManifest("[{ path: skills/pdf-forms, namespace: docs }]"),
      "skills/pdf-forms/SKILL.md": skillFile(front, body),
      "skills/pdf-forms/scripts/fill.py": "print('ok')\n",
      "skills/pdf-forms/references/forms.md": "Forms.\n",
      "skills/pdf-forms/LICENSE.txt": "Terms.\n",
    },
    async (project) => {
      const run = await project.gen();
      assert.equal(run.where, [], "paths inside a fenced code block are the example's, not the skill's");
      const skills = await embeddedSkills(project);
      const skill = skills?.bundled[0];
      assert.equal(skills?.namespaces, ["docs"]);
      assert.equal(
        skill === undefined ? [] : Object.keys(skill),
        ["namespace", "name", "version", "description", "license", "instructions", "resources", "digest"],
        "only the index's keys",
      );
      assert.is(skill?.version, "2.0.1");
      assert.is(skill?.namespace, "docs");
      assert.equal(
        skill?.resources.map((r) => r.path),
        ["LICENSE.txt", "references/forms.md", "scripts/fill.py"],
      );
    },
  );
});

test("a referenced resource that does not exist is a warning at its place in SKILL.md; gen still writes", async () => {
  await withProject(
    {
      "agent.yaml": agentManifest("[./skills/packing-advice]"),
      "skills/packing-advice/SKILL.md": PACKING.replace("references/packing-checklist.md", "references/missing.md"),
    },
    async (project) => {
      const run = await project.gen();
      assert.equal(run.where, [["MF1508", "manifests/skills/packing-advice/SKILL.md", 10, 72]]);
      assert.is(run.code, 0);
      assert.is((await embeddedSkills(project))?.bundled.length, 1);
    },
  );
});

test.run();
