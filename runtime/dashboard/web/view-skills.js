// Skills: the capability catalog each agent's planner reads (every healthy or degraded
// registration), internal capabilities marked: they stay callable but the planner is not shown them.
import { api, badge, empty, h } from "./dom.js";

function fields(summary) {
  if (!summary) return "";
  const required = summary.required_fields.map((f) => `${f.name}: ${f.type}`);
  const optional = summary.optional_fields.map((f) => `${f.name}?: ${f.type}`);
  return [...required, ...optional].join(", ");
}

export default {
  id: "skills",
  title: "Skills",
  persist: ["agent"],
  controls(ctx) {
    const agents = ctx.state.agents ?? [];
    if (agents.length === 0) return [];
    return agents.map((name) =>
      h(
        "button",
        { type: "button", class: "filter", "data-agent": name, "aria-pressed": String(ctx.state.agent === name), onclick: () => ctx.set({ agent: name }) },
        name,
      ),
    );
  },
  async load(ctx) {
    const data = await api("/api/skills");
    const names = data.agents.map((a) => a.agent);
    ctx.state.agents = names;
    if (!names.includes(ctx.state.agent)) ctx.state.agent = names[0];
    return data;
  },
  render(data, ctx) {
    if (data.agents.length === 0) return empty("No agent is registered, so no planner reads a catalog.");
    const skills = data.agents.find((a) => a.agent === ctx.state.agent) ?? data.agents[0];
    return h(
      "div",
      { class: "list", "data-testid": "skills", "data-agent": skills.agent },
      h(
        "p",
        {},
        `${skills.agent}'s planner may use ${skills.visible_count} capabilit${skills.visible_count === 1 ? "y" : "ies"}; ${skills.internal_count} internal one${skills.internal_count === 1 ? " is" : "s are"} hidden from it.`,
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
                      { "data-testid": "skill", "data-name": capability.name, "data-internal": String(capability.internal) },
                      h("td", {}, h("strong", {}, capability.name)),
                      h("td", {}, capability.description),
                      h("td", {}, badge(capability.type, "type")),
                      h("td", { class: "mono small" }, fields(capability.input_summary)),
                      h("td", {}, capability.internal ? badge("internal · hidden from the planner", "internal") : badge("planner", "visible")),
                    ),
                  ),
                ),
              ),
        ),
      ),
    );
  },
};
