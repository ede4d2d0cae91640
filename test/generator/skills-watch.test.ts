/**
 * `manifold gen --watch` and skill folders: gen embeds a skill's SKILL.md and resources, so a save of
 * either regenerates, as does a folder becoming a skill; hidden files (editors' swap files) in a skill
 * do not. The watch loop in-process with a stand-in for gen that counts its runs; every wait is bounded.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { watchManifests } from "../../generator/watch.js";
import { eventually, within } from "../support/wait.js";
import { tempProject } from "./load-helpers.js";
import { agentManifest, skillFile } from "./skills-support.js";

test("a save of a SKILL.md or of a resource regenerates; a new SKILL.md makes a folder a skill; hidden files do not", async () => {
  const { root, cleanup } = await tempProject({
    "manifests/agent.yaml": agentManifest("[./skills/a, ./skills/b]"),
    "manifests/skills/a/SKILL.md": skillFile("name: a\ndescription: d"),
    "manifests/skills/a/references/notes.md": "Notes.\n",
    "manifests/skills/b/draft.txt": "not a skill yet\n",
  });
  const dir = join(root, "manifests");
  const controller = new AbortController();
  const state = { runs: 0, err: "" };
  const done = watchManifests({
    manifestsDir: dir,
    io: { err: (text) => void (state.err += text) },
    signal: controller.signal,
    regenerate: async () => {
      state.runs++;
      return 0;
    },
  });
  const seen = () => `${state.runs} runs; stderr:\n${state.err}`;
  try {
    await eventually("the watch to start", () => state.err.includes("for changes (Ctrl-C to stop)"), { describe: seen });
    await writeFile(join(dir, "skills/a/SKILL.md"), skillFile("name: a\ndescription: edited"));
    await eventually("a run after the SKILL.md save", () => state.runs === 2, { describe: seen });
    assert.match(state.err, /change in .*manifests\/skills\/a\/SKILL\.md, regenerating/);
    await writeFile(join(dir, "skills/a/references/notes.md"), "Edited notes.\n");
    await eventually("a run after the resource save", () => state.runs === 3, { describe: seen });
    await writeFile(join(dir, "skills/b/SKILL.md"), skillFile("name: b\ndescription: d"));
    await eventually("a run after the new SKILL.md", () => state.runs === 4, { describe: seen });
    await writeFile(join(dir, "skills/b/draft.txt"), "now a resource of skill b\n");
    await eventually("a run after a save in the new skill", () => state.runs === 5, { describe: seen });
    await mkdir(join(dir, "skills/a/.cache"));
    await writeFile(join(dir, "skills/a/.SKILL.md.swp"), "swap");
    // A save in the same folder after them: its run comes after anything they started, whatever the load.
    await writeFile(join(dir, "skills/a/SKILL.md"), skillFile("name: a\ndescription: saved after the swap file"));
    await eventually("a run after the SKILL.md saved after the hidden files", () => state.runs >= 6, { describe: seen });
    const runs = state.err.match(/change in .*, regenerating/g) ?? [];
    assert.is(runs.length, 5, seen());
    assert.match(runs[4]!, /change in \S*manifests\/skills\/a\/SKILL\.md, regenerating/, `hidden files in a skill start no run\n${seen()}`);
    assert.is(state.runs, 6, seen());
  } finally {
    controller.abort();
    assert.is(await within("the watch to end after the abort", done), 0);
    await cleanup();
  }
});

test.run();
