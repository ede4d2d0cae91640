// Registry: every registered service with its health, last heartbeat, address, capabilities
// (internal ones marked) and a link to its OpenAPI document in the API browser.
import { ago, api, badge, empty, h } from "./dom.js";

const TYPES = { agents: "agent", tools: "tool", mcp: "mcp" };

/** What each verification means, as a tooltip. */
const SIGNATURES = {
  verified: "signed with this network's registry key: commands and OpenAPI requests may go to it",
  unsigned: "not signed: with a registry key the dashboard sends it nothing",
  bad_signature: "signed with another key, or changed after signing: ignored",
  expired: "its signature is older than its TTL (a replayed record): ignored",
  unchecked: "signed, but this dashboard has no MANIFOLD_REGISTRY_KEY to check it",
};

export default {
  id: "registry",
  title: "Registry",
  filters: [
    { id: "all", label: "All" },
    { id: "agents", label: "Agents" },
    { id: "tools", label: "Tools" },
    { id: "mcp", label: "MCP servers" },
  ],
  async load({ filter }) {
    const type = TYPES[filter];
    const [services, documented] = await Promise.all([api(`/api/services${type ? `?type=${type}` : ""}`), api("/swagger-urls.json").catch(() => [])]);
    return { services, documented: documented.map((entry) => entry.name) };
  },
  render({ services, documented }) {
    if (services.length === 0) return empty("No service is registered. Components register while they run; is REDIS_URL the network's?");
    const rows = services.map((service) =>
      h(
        "tr",
        {
          "data-testid": "service-row",
          "data-name": service.name,
          "data-type": service.type,
          "data-health": service.health,
          "data-verification": service.verification,
        },
        h("td", {}, h("strong", {}, service.name), h("div", { class: "muted small" }, service.id)),
        h("td", {}, badge(service.type)),
        h("td", {}, badge(service.health)),
        h("td", { title: SIGNATURES[service.verification] ?? "" }, badge(service.verification.replace("_", " "), service.verification)),
        h("td", { title: service.last_seen }, ago(service.last_seen)),
        h("td", { class: "mono" }, `${service.address}:${service.port}`),
        h(
          "td",
          {},
          service.capabilities.length === 0
            ? h("span", { class: "muted" }, "none")
            : service.capabilities.map((capability) =>
                h(
                  "span",
                  { class: `chip${capability.internal ? " internal" : ""}`, title: capability.description, "data-testid": "capability" },
                  capability.name,
                  capability.internal ? " · internal" : "",
                ),
              ),
        ),
        h(
          "td",
          {},
          documented.includes(service.name)
            ? h("a", { href: `/api-browser?service=${encodeURIComponent(service.name)}`, "data-testid": "openapi-link" }, "OpenAPI")
            : h("span", { class: "muted small", title: "MANIFOLD_ENABLE_OPENAPI is not true for this service" }, "no OpenAPI"),
        ),
      ),
    );
    return h(
      "table",
      { class: "grid" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Service", "Type", "Health", "Signature", "Last seen", "Address", "Capabilities", "API"].map((name) => h("th", {}, name)),
        ),
      ),
      h("tbody", {}, rows),
    );
  },
};
