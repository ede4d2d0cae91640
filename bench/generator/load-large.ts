/**
 * Loading a large manifest: about 600 KiB, 2,000 capabilities, each with two described inputs (the
 * manifest test/generator/load-robustness.test.ts checks for correctness). Aim: under 10 s.
 *
 *   npx tsx --conditions=source bench/generator/load-large.ts
 */
// The same loader (with the agent feature list) the test uses.
import { loadSources } from "../../test/support/manifests.js";

const capability = (i: number) =>
  `  - name: cap_${i}\n    description: Capability ${i}\n    input:\n      required:\n        - { name: a, type: string, example: x, description: "${"d".repeat(100)}" }\n        - { name: b, type: integer, example: ${i} }\n`;
const text = `kind: tool\nname: big\ndescription: d\ncapabilities:\n${Array.from({ length: 2000 }, (_, i) => capability(i)).join("")}`;

const times: number[] = [];
for (let round = 0; round < 3; round += 1) {
  const started = performance.now();
  const project = loadSources([{ file: "big.yaml", text }]);
  times.push(performance.now() - started);
  if (project.diagnostics.length > 0) throw new Error("the large manifest did not load cleanly");
}
console.log(`${(text.length / 1024).toFixed(0)} KiB, 2,000 capabilities: ${times.map((t) => `${Math.round(t)} ms`).join(", ")} (first is cold)`);
