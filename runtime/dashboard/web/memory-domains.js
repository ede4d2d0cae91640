// The Memory view's Agent memory: one agent memory domain's episodes (newest first, a page at a
// time, optionally about one entity), its activity digest and the knowledge reflection drew.
import { ago, api, badge, empty, h } from "./dom.js";

const PAGE = 20;

export async function loadDomain(ctx) {
  const { domains, source } = await api("/api/memory/domains");
  ctx.state.domains = domains;
  const domain = domains.includes(ctx.state.domain) ? ctx.state.domain : domains[0];
  if (domain === undefined) return { kind: "domains", domains, source };
  const offset = Number(ctx.state.offset ?? 0) || 0;
  const entity = ctx.state.entity;
  const q = (params) => new URLSearchParams({ domain, ...(entity ? { entity } : {}), ...params }).toString();
  const [episodes, knowledge] = await Promise.all([
    api(`/api/memory/episodes?${q({ offset: String(offset), limit: String(PAGE) })}`),
    api(`/api/memory/knowledge?${q({})}`),
  ]);
  return { kind: "domains", domains, source, domain, episodes, knowledge };
}

function entityChip(ctx, entity) {
  return h(
    "button",
    { type: "button", class: "chip link", "data-testid": "episode-entity", "data-entity": entity, onclick: () => ctx.set({ entity, offset: undefined }) },
    entity,
  );
}

function episodeCard(ctx, episode) {
  return h(
    "article",
    { class: "card", "data-testid": "episode", "data-id": episode.id, "data-status": episode.status },
    h(
      "div",
      { class: "row" },
      badge(episode.status),
      h("span", { class: "muted small", title: episode.created_at }, ago(episode.created_at)),
      episode.user ? h("span", { class: "small" }, `asked by ${episode.user}`) : null,
      episode.request_id ? h("span", { class: "muted small mono", title: "request id" }, episode.request_id) : null,
      episode.reflected_at ? badge("reflected", "success") : null,
      h("span", { class: "muted small" }, `summary ${episode.summary_outcome}`),
    ),
    h("p", { class: "content", "data-testid": "episode-summary" }, episode.summary),
    episode.entities.length > 0
      ? h(
          "div",
          {},
          episode.entities.map((e) => entityChip(ctx, e)),
        )
      : null,
    h(
      "details",
      {},
      h("summary", { class: "small" }, `${episode.events.length} event${episode.events.length === 1 ? "" : "s"}`),
      h(
        "ol",
        { class: "small" },
        episode.events.map((event) =>
          h(
            "li",
            { "data-testid": "episode-event", "data-kind": event.kind },
            h("strong", {}, event.kind),
            event.capability ? h("span", { class: "mono" }, ` ${event.capability}`) : null,
            event.status ? h("span", { class: "muted" }, ` · ${event.status}`) : null,
            h("div", { class: "content" }, event.text),
          ),
        ),
      ),
    ),
  );
}

function pager(ctx, episodes) {
  const offset = episodes.offset;
  if (offset === 0 && !episodes.more) return null;
  return h(
    "div",
    { class: "row" },
    h(
      "button",
      { type: "button", disabled: offset === 0, "data-testid": "newer", onclick: () => ctx.set({ offset: Math.max(0, offset - episodes.limit) || undefined }) },
      "Newer",
    ),
    h("span", { class: "muted small" }, `${offset + 1}–${offset + episodes.episodes.length}`),
    h("button", { type: "button", disabled: !episodes.more, "data-testid": "older", onclick: () => ctx.set({ offset: offset + episodes.limit }) }, "Older"),
    offset + episodes.limit >= episodes.window ? h("span", { class: "muted small" }, `the newest ${episodes.window} are browsable`) : null,
  );
}

function knowledgeColumn(data) {
  const { digest, knowledge } = data.knowledge;
  return h(
    "div",
    { class: "column list" },
    h(
      "section",
      { class: "card", "data-testid": "digest" },
      h("h3", {}, "Activity digest"),
      digest
        ? [
            h("p", { class: "content", "data-testid": "digest-text" }, digest.text),
            h(
              "p",
              { class: "muted small" },
              `${digest.episodes} episode${digest.episodes === 1 ? "" : "s"} through ${digest.through} · ${ago(digest.updated_at)}`,
            ),
          ]
        : h("p", { class: "muted small" }, "No digest yet: it is compacted from the episodes as they come."),
    ),
    h(
      "section",
      { class: "card" },
      h("h3", {}, data.episodes.entity ? `Knowledge about ${data.episodes.entity}` : "Knowledge"),
      knowledge.length === 0
        ? h("p", { class: "muted small" }, "No knowledge yet: reflection passes turn episodes about one entity into it.")
        : knowledge.map((fragment) =>
            h(
              "div",
              { class: "interaction", "data-testid": "knowledge", "data-entity": fragment.entity, "data-pass": fragment.pass_id },
              h("strong", {}, fragment.entity),
              h("p", { class: "content" }, fragment.text),
              h(
                "p",
                { class: "muted small" },
                `${fragment.episode_ids.length} episode${fragment.episode_ids.length === 1 ? "" : "s"} · ${fragment.pass_id} · ${ago(fragment.created_at)}`,
              ),
            ),
          ),
    ),
  );
}

export function renderDomain(data, ctx) {
  if (data.domain === undefined) return empty("No memory domain: no agent is registered and MANIFOLD_VIEWER_MEMORY_DOMAINS is unset.");
  const { episodes } = data;
  const heading = h(
    "p",
    { class: "muted small", "data-testid": "domain-source" },
    data.source === "configured"
      ? "Domains from MANIFOLD_VIEWER_MEMORY_DOMAINS."
      : "Domains: the registered agents (an agent's domain is its name unless MANIFOLD_AGENT_DOMAIN says otherwise).",
    episodes.entity
      ? [
          " Episodes about ",
          h("strong", {}, episodes.entity),
          " ",
          h("button", { type: "button", class: "link", onclick: () => ctx.set({ entity: undefined, offset: undefined }) }, "show all"),
        ]
      : null,
  );
  const list = h(
    "div",
    { class: "column list", "data-testid": "episodes", "data-domain": data.domain },
    h("h3", {}, `Episodes of ${data.domain}`),
    episodes.episodes.length === 0
      ? empty(episodes.entity ? "No episode about this entity." : "No episode recorded in this domain yet.")
      : episodes.episodes.map((e) => episodeCard(ctx, e)),
    pager(ctx, episodes),
  );
  return h("div", {}, heading, h("div", { class: "columns split" }, list, knowledgeColumn(data)));
}
