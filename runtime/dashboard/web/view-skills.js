// Skills: the skill registry (every skill with its versions, the pin, the version a request uses now,
// and the runs each version shaped, linked to the Execution DAG) and the capability catalog each
// agent's planner reads (internal capabilities marked: callable, but the planner is not shown them).
import { ago, api, badge, empty, h } from "./dom.js";

function fields(summary) {
  if (!summary) return "";
  const required = summary.required_fields.map((f) => `${f.name}: ${f.type}`);
  const optional = summary.optional_fields.map((f) => `${f.name}?: ${f.type}`);
  return [...required, ...optional].join(", ");
}

/** Runs listed under a skill; the version table counts them all. */
const RUNS_SHOWN = 10;

function textFilter(ctx, placeholder) {
  return h(
    "form",
    {
      class: "inline",
      onsubmit: (event) => {
        event.preventDefault();
        ctx.set({ q: new FormData(event.target).get("q").trim() });
      },
    },
    h("input", { name: "q", value: ctx.state.q ?? "", placeholder, "aria-label": placeholder, "data-testid": "skill-filter" }),
    h("button", { type: "submit" }, "Filter"),
    ctx.state.q ? h("button", { type: "button", onclick: () => ctx.set({ q: undefined }) }, "Clear") : null,
  );
}

function versionRow(version) {
  return h(
    "tr",
    {
      "data-testid": "skill-version",
      "data-version": version.version,
      "data-state": version.state,
      "data-pinned": String(version.pinned),
      "data-runs": String(version.run_count),
    },
    h("td", {}, h("strong", { class: "mono" }, version.version)),
    h(
      "td",
      {},
      badge(version.state, version.state === "active" ? "success" : version.state === "retired" ? "failed" : "idle"),
      version.pinned ? [" ", badge("pinned", "plan")] : null,
    ),
    h(
      "td",
      { class: "muted small", title: version.published_at },
      `published ${ago(version.published_at)}`,
      version.retired_at ? ` · retired ${ago(version.retired_at)}` : "",
    ),
    h("td", { class: "mono small", title: version.digest }, version.digest.slice(0, 12)),
    h("td", { class: "small" }, `${version.run_count} run${version.run_count === 1 ? "" : "s"}`),
  );
}

function runList(skill) {
  const runs = skill.versions.flatMap((v) => v.runs).sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at));
  if (runs.length === 0) return h("p", { class: "muted small" }, "No recent run was shaped by this skill.");
  return h(
    "ul",
    { class: "pick", "data-testid": "skill-runs" },
    runs
      .slice(0, RUNS_SHOWN)
      .map((run) =>
        h(
          "li",
          { "data-testid": "skill-run", "data-plan": run.plan_id, "data-version": run.version },
          badge(run.status),
          " ",
          h("a", { href: `#/executions?plan=${encodeURIComponent(run.plan_id)}`, class: "mono", "data-testid": "skill-run-link" }, run.plan_id),
          h("span", { class: "muted small" }, ` · ${run.mode} · version ${run.version} · ${ago(run.started_at)}`),
          run.resources.length > 0 ? h("span", { class: "small" }, ` · read ${run.resources.join(", ")}`) : null,
        ),
      ),
    runs.length > RUNS_SHOWN ? h("li", { class: "muted small" }, `and ${runs.length - RUNS_SHOWN} more`) : null,
  );
}

function skillCard(skill) {
  const id = `${skill.namespace}/${skill.name}`;
  return h(
    "section",
    {
      class: "card",
      "data-testid": "registry-skill",
      "data-skill": id,
      "data-active": skill.active ?? "",
      "data-pinned": skill.pinned ?? "",
    },
    h(
      "h3",
      {},
      h("span", { class: "muted" }, `${skill.namespace}/`),
      skill.name,
      " ",
      skill.active ? badge(`uses ${skill.active}`, "success") : badge("every version retired", "failed"),
      " ",
      skill.pinned ? badge(`pinned to ${skill.pinned}`, "plan") : h("span", { class: "muted small" }, "not pinned: the newest version is used"),
    ),
    h("p", { class: "muted small" }, skill.description),
    h("table", { class: "grid" }, h("tbody", {}, skill.versions.map(versionRow))),
    skill.version_count > skill.versions.length
      ? h("p", { class: "muted small" }, `${skill.versions.length} of ${skill.version_count} versions shown: the newest, the active and the pinned one.`)
      : null,
    h("h4", {}, "Runs it shaped"),
    runList(skill),
  );
}

function renderRegistry(data, ctx) {
  // The API filters by the text (data.q) and lists at most a page of skills.
  const shown = data.skills;
  const scan = data.runs.enabled
    ? `Runs found in the newest ${data.runs.scanned} execution record${data.runs.scanned === 1 ? "" : "s"} (at most ${data.runs.limit}).`
    : data.runs.message;
  if (shown.length === 0 && !data.q) return empty("No skill is published in the registry: agents publish the skills their manifests list when they start.");
  return h(
    "div",
    { class: "list", "data-testid": "skill-registry" },
    h("p", { class: "muted small", "data-testid": "run-scan" }, scan),
    data.truncated
      ? h(
          "p",
          { class: "muted small", "data-testid": "skills-truncated" },
          `${shown.length} of ${data.total} skills shown: filter by namespace/name to find the others.`,
        )
      : null,
    shown.length === 0 ? empty(`No skill matches ${JSON.stringify(ctx.state.q)}.`) : shown.map(skillCard),
  );
}

/** Why a capability is not shown to the agent's planner (AgentSkills.hidden_by). */
const HIDDEN_BY = {
  internal: "internal · hidden from the planner",
  lasting: "lasting effects · hidden from the planner",
  uses: "hidden from this agent's planner (uses)",
};

function renderCatalog(data, ctx) {
  if (data.agents.length === 0) return empty("No agent is registered, so no planner reads a catalog.");
  const skills = data.agents.find((a) => a.agent === ctx.state.agent) ?? data.agents[0];
  return h(
    "div",
    { class: "list", "data-testid": "skills", "data-agent": skills.agent },
    h(
      "p",
      {},
      `${skills.agent}'s planner may use ${skills.visible_count} capabilit${skills.visible_count === 1 ? "y" : "ies"}; ${skills.internal_count} internal one${skills.internal_count === 1 ? " is" : "s are"} hidden from it` +
        (skills.hidden_count > 0 ? `, and ${skills.hidden_count} more by its manifest (lasting effects not allowed, or its uses entries).` : "."),
    ),
    skills.components.map((component) =>
      h(
        "section",
        { class: "card", "data-testid": "skill-component", "data-name": component.name },
        h("h3", {}, component.name, " ", badge(component.kind), component.self ? h("span", { class: "muted" }, " (this agent)") : null),
        h("p", { class: "muted small" }, component.description),
        component.capabilities.length === 0
          ? h("p", { class: "muted" }, "No capabilities.")
          : h(
              "table",
              { class: "grid" },
              h(
                "tbody",
                {},
                component.capabilities.map((capability) =>
                  h(
                    "tr",
                    {
                      "data-testid": "skill",
                      "data-name": capability.name,
                      "data-internal": String(capability.internal),
                      "data-planner": String(capability.planner_visible),
                    },
                    h("td", {}, h("strong", {}, capability.name)),
                    h("td", {}, capability.description),
                    h("td", {}, badge(capability.type, "type")),
                    h("td", { class: "mono small" }, fields(capability.input_summary)),
                    h(
                      "td",
                      {},
                      capability.planner_visible
                        ? badge("planner", "visible")
                        : badge(HIDDEN_BY[capability.hidden_by] ?? "hidden from the planner", "internal"),
                    ),
                  ),
                ),
              ),
            ),
      ),
    ),
  );
}

export default {
  id: "skills",
  title: "Skills",
  persist: ["filter", "agent", "q"],
  filters: [
    { id: "registry", label: "Skill registry" },
    { id: "catalog", label: "Planner catalog" },
  ],
  controls(ctx) {
    if (ctx.filter !== "catalog") return [h("span", { class: "separator" }), textFilter(ctx, "namespace/name")];
    const agents = ctx.state.agents ?? [];
    if (agents.length === 0) return [];
    return [
      h("span", { class: "separator" }),
      ...agents.map((name) =>
        h(
          "button",
          { type: "button", class: "filter", "data-agent": name, "aria-pressed": String(ctx.state.agent === name), onclick: () => ctx.set({ agent: name }) },
          name,
        ),
      ),
    ];
  },
  async load(ctx) {
    if (ctx.filter !== "catalog") {
      const q = ctx.state.q ? `?${new URLSearchParams({ q: ctx.state.q })}` : "";
      return { kind: "registry", ...(await api(`/api/skills/registry${q}`)) };
    }
    const data = await api("/api/skills");
    const names = data.agents.map((a) => a.agent);
    ctx.state.agents = names;
    if (!names.includes(ctx.state.agent)) ctx.state.agent = names[0];
    return { kind: "catalog", ...data };
  },
  notice: (data) => (data.kind === "registry" && !data.runs.enabled ? data.runs.message : undefined),
  render(data, ctx) {
    return data.kind === "registry" ? renderRegistry(data, ctx) : renderCatalog(data, ctx);
  },
};
