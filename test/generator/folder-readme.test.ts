/**
 * The README gen writes into its output folder tells a reader how to regenerate it with a command that
 * exists in any project (the `manifold` bin), not an npm script the project may never have defined.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { emitFolderReadme } from "../../generator/emit/readme.js";

test("the output folder's README names the manifold command with the project's manifests folder, no npm script", () => {
  const readme = emitFolderReadme({
    manifestsDir: "services/manifests",
    components: [{ name: "weather", kind: "tool", file: "services/manifests/weather.yaml" }],
  });
  assert.match(readme, "`npx manifold gen --manifests services/manifests --out <this folder>`");
  assert.match(readme, "`npx manifold gen --check`");
  assert.not.match(readme, /npm run/);
  assert.match(readme, "| `weather` | tool | `services/manifests/weather.yaml` |");
});

test.run();
