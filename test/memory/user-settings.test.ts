/**
 * The `memory:` manifest key and the variables over it: `true` or a block (both memories on by
 * default, the domain the agent's name), a bad block refused with a positioned diagnostic, and
 * `MANIFOLD_MEMORY_ENABLED` / `MANIFOLD_AGENT_DOMAIN` overriding at start-up (a bad value stops it).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { resolveMemorySettings } from "../../runtime/memory/index.js";
import { loadManifestText } from "../support/manifests.js";

const AGENT = "kind: agent\nname: trip-helper\ndescription: d\ncapabilities: []\n";
const specOf = (extra: string) => {
  const project = loadManifestText("m/a.yaml", `${AGENT}${extra}`);
  return { memory: project.manifests[0]?.component?.agent?.memory, diagnostics: project.diagnostics };
};

test("memory: true turns both memories on under the agent's name; a block sets each; no key or false leaves it off", () => {
  assert.equal(specOf("memory: true\n"), { memory: { user: true, episodic: true, domain: "trip-helper" }, diagnostics: [] });
  assert.equal(specOf("memory: { episodic: false, domain: travel.eu }\n").memory, { user: true, episodic: false, domain: "travel.eu" });
  assert.is(specOf("memory: false\n").memory, undefined);
  assert.is(specOf("").memory, undefined);
});

test("an unknown key or a domain that is not a key name is a positioned diagnostic", () => {
  const unknown = specOf("memory: { users: true }\n").diagnostics;
  assert.ok(unknown.length > 0 && unknown.every((d) => d.line === 5 && d.severity === "error"), JSON.stringify(unknown));
  assert.match(unknown[0]!.message, /users/);
  const domain = specOf("memory: { domain: 'has {braces}' }\n").diagnostics;
  assert.ok(domain.length > 0 && domain[0]!.line === 5, JSON.stringify(domain));
});

test("MANIFOLD_MEMORY_ENABLED turns memory on or off whatever the manifest says; MANIFOLD_AGENT_DOMAIN names the domain", () => {
  const spec = { user: true, episodic: false, domain: "travel" };
  assert.equal(resolveMemorySettings(spec, "a", {}), { user: true, episodic: false, domain: "travel" });
  assert.equal(resolveMemorySettings(spec, "a", { MANIFOLD_MEMORY_ENABLED: "false" }), { user: false, episodic: false, domain: "travel" });
  assert.equal(resolveMemorySettings(undefined, "a", {}), { user: false, episodic: false, domain: "a" });
  assert.equal(resolveMemorySettings(undefined, "a", { MANIFOLD_MEMORY_ENABLED: "true", MANIFOLD_AGENT_DOMAIN: "ops" }), {
    user: true,
    episodic: true,
    domain: "ops",
  });
  assert.throws(() => resolveMemorySettings(spec, "a", { MANIFOLD_MEMORY_ENABLED: "yes" }), /MANIFOLD_MEMORY_ENABLED must be true or false/);
  assert.throws(() => resolveMemorySettings(spec, "a", { MANIFOLD_AGENT_DOMAIN: "a b" }), /MANIFOLD_AGENT_DOMAIN/);
});

test.run();
