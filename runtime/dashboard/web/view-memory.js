// Memory: what agents remember. User memory: a user's facts (with the turn each came from and the
// value it replaced), their summary, and their chat sessions. Agent memory: per agent memory domain
// (MANIFOLD_VIEWER_MEMORY_DOMAINS, else the registered agents), the episodes of its runs (newest
// first, paged, by entity), the activity digest and the knowledge reflection drew from them.
import { ago, api, empty, h } from "./dom.js";
import { loadDomain, renderDomain } from "./memory-domains.js";

function form(ctx, { name, placeholder, label, testid, apply }) {
  return h(
    "form",
    {
      class: "inline",
      onsubmit: (event) => {
        event.preventDefault();
        apply(new FormData(event.target).get(name).trim());
      },
    },
    h("input", { name, value: ctx.state[name] ?? "", placeholder, "aria-label": placeholder, "data-testid": testid }),
    h("button", { type: "submit" }, label),
  );
}

function userControls(ctx) {
  return [
    h("span", { class: "separator" }),
    form(ctx, {
      name: "user",
      placeholder: "User id",
      label: "Show user",
      testid: "user-input",
      apply: (user) => user !== "" && ctx.set({ user, session: undefined }),
    }),
    form(ctx, { name: "q", placeholder: "Key or value text", label: "Filter facts", testid: "fact-filter", apply: (q) => ctx.set({ q: q || undefined }) }),
  ];
}

function domainControls(ctx) {
  const domains = ctx.state.domains ?? [];
  const current = ctx.state.domain ?? domains[0];
  return [
    h("span", { class: "separator" }),
    ...domains.map((name) =>
      h(
        "button",
        {
          type: "button",
          class: "filter",
          "data-domain": name,
          "aria-pressed": String(current === name),
          onclick: () => ctx.set({ domain: name, offset: undefined }),
        },
        name,
      ),
    ),
    form(ctx, {
      name: "entity",
      placeholder: "Entity (city:lisbon)",
      label: "Filter episodes",
      testid: "entity-filter",
      apply: (e) => ctx.set({ entity: e || undefined, offset: undefined }),
    }),
  ];
}

async function loadUsers(ctx) {
  const users = await api("/api/memory/users");
  const user = ctx.state.user ?? users.users[0];
  if (user === undefined) return { kind: "users", users };
  const q = (params) => new URLSearchParams(params).toString();
  const [facts, sessions] = await Promise.all([api(`/api/memory/facts?${q({ user })}`), api(`/api/memory/sessions?${q({ user })}`)]);
  const chosen = ctx.state.session ?? sessions.sessions[0]?.id;
  const session = chosen === undefined ? undefined : await api(`/api/memory/sessions/${encodeURIComponent(chosen)}`).catch(() => undefined);
  return { kind: "users", users, user, facts, sessions, session: session?.session };
}

function userList(data, ctx) {
  const { users, user } = data;
  return h(
    "div",
    { class: "column" },
    h("h3", {}, "Users"),
    users.note ? h("p", { class: "muted small", "data-testid": "users-note" }, users.note) : null,
    users.users.length === 0 && !users.note ? empty("No user has facts or a chat session here.") : null,
    h(
      "ul",
      { class: "pick" },
      users.users.map((name) =>
        h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: "link",
              "data-testid": "memory-user",
              "data-user": name,
              "aria-pressed": String(name === user),
              onclick: () => ctx.set({ user: name, session: undefined }),
            },
            name,
          ),
        ),
      ),
    ),
    users.truncated ? h("p", { class: "muted small" }, "More users exist than are listed; enter an id above.") : null,
  );
}

function sourceOf(fact) {
  const { session_id, message_id, request_id } = fact.source ?? {};
  if (session_id) return `session ${session_id}${message_id ? ` · message ${message_id}` : ""}`;
  return request_id ? `request ${request_id}` : "";
}

function factsSection(data, ctx) {
  const { facts } = data;
  const q = (ctx.state.q ?? "").toLowerCase();
  const shown = facts.facts.filter((f) => q === "" || f.key.toLowerCase().includes(q) || f.value.toLowerCase().includes(q));
  const summary = facts.summary;
  return h(
    "section",
    { class: "card", "data-testid": "user-memory", "data-user": data.user },
    h("h3", {}, `What is remembered about ${data.user}`),
    summary
      ? h(
          "div",
          { "data-testid": "memory-summary", "data-stale": String(facts.summary_stale) },
          h("p", { class: "content" }, summary.text),
          h("p", { class: "muted small" }, `Summary made ${ago(summary.updated_at)}`, facts.summary_stale ? " · the facts have changed since" : ""),
        )
      : h("p", { class: "muted small", "data-testid": "memory-summary-none" }, "No summary yet."),
    facts.facts.length === 0
      ? empty("No fact is remembered about this user.")
      : shown.length === 0
        ? empty(`No fact matches ${JSON.stringify(ctx.state.q)}.`)
        : h(
            "table",
            { class: "grid", "data-testid": "facts" },
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ["key", "value", "learnt from", "updated", "replaced"].map((t) => h("th", {}, t)),
              ),
            ),
            h(
              "tbody",
              {},
              shown.map((fact) =>
                h(
                  "tr",
                  { "data-testid": "fact", "data-key": fact.key },
                  h("td", { class: "mono" }, fact.key),
                  h("td", { "data-testid": "fact-value" }, fact.value),
                  h("td", { class: "muted small mono" }, sourceOf(fact)),
                  h("td", { class: "muted small", title: fact.updated_at }, ago(fact.updated_at)),
                  h("td", { class: "small", "data-testid": "fact-previous" }, fact.previous ?? ""),
                ),
              ),
            ),
          ),
  );
}

function sessionsSection(data, ctx) {
  const { sessions, session } = data;
  const list = h(
    "div",
    { class: "column" },
    h("h3", {}, "Chat sessions"),
    sessions.sessions.length === 0
      ? empty("No live session.")
      : h(
          "ul",
          { class: "pick" },
          sessions.sessions.map((s) =>
            h(
              "li",
              {},
              h(
                "button",
                {
                  type: "button",
                  class: "link",
                  "data-testid": "memory-session",
                  "data-session": s.id,
                  "aria-pressed": String(s.id === session?.id),
                  onclick: () => ctx.set({ session: s.id }),
                },
                s.title || s.preview || s.id,
              ),
              h("div", { class: "muted small" }, `${s.message_count} messages · ${ago(s.updated_at)}`),
            ),
          ),
        ),
  );
  const transcript = h(
    "div",
    { class: "column" },
    h("h3", {}, session === undefined ? "Messages" : session.title || session.id),
    session === undefined
      ? empty("Pick a session.")
      : h(
          "ol",
          { class: "messages", "data-testid": "messages" },
          session.messages.map((m) =>
            h(
              "li",
              { class: `message ${m.role}`, "data-testid": "message", "data-role": m.role, "data-message": m.id },
              h("div", { class: "muted small" }, `${m.role} · ${new Date(m.timestamp).toLocaleString()}`),
              h("div", { class: "content" }, m.content),
            ),
          ),
        ),
  );
  return h("div", { class: "columns sessions" }, list, transcript);
}

function renderUsers(data, ctx) {
  const right =
    data.user === undefined
      ? h("div", { class: "column" }, empty(data.users.users.length === 0 ? "No user to show yet." : "Pick a user."))
      : h("div", { class: "column list" }, factsSection(data, ctx), sessionsSection(data, ctx));
  return h("div", { class: "columns two" }, userList(data, ctx), right);
}

export default {
  id: "memory",
  title: "Memory",
  persist: ["filter", "user", "session", "q", "domain", "entity", "offset"],
  filters: [
    { id: "users", label: "User memory" },
    { id: "domains", label: "Agent memory" },
  ],
  controls(ctx) {
    return ctx.filter === "domains" ? domainControls(ctx) : userControls(ctx);
  },
  async load(ctx) {
    return ctx.filter === "domains" ? loadDomain(ctx) : loadUsers(ctx);
  },
  render(data, ctx) {
    return data.kind === "domains" ? renderDomain(data, ctx) : renderUsers(data, ctx);
  },
};
