// Memory: chat sessions per user and their messages, for each configured domain (a store
// namespace: MANIFOLD_VIEWER_MEMORY_DOMAINS).
import { ago, api, empty, h } from "./dom.js";

export default {
  id: "memory",
  title: "Memory",
  persist: ["domain", "user", "session"],
  controls(ctx) {
    const domains = ctx.config.memory_domains ?? [];
    const domain = ctx.state.domain ?? domains[0];
    return [
      ...domains.map((name) =>
        h(
          "button",
          {
            type: "button",
            class: "filter",
            "data-domain": name,
            "aria-pressed": String(domain === name),
            onclick: () => ctx.set({ domain: name, user: undefined, session: undefined }),
          },
          name,
        ),
      ),
      h(
        "form",
        {
          class: "inline",
          onsubmit: (event) => {
            event.preventDefault();
            const user = new FormData(event.target).get("user").trim();
            if (user !== "") ctx.set({ user, session: undefined });
          },
        },
        h("input", { name: "user", placeholder: "User id", "aria-label": "User id", "data-testid": "user-input" }),
        h("button", { type: "submit" }, "Show sessions"),
      ),
    ];
  },
  async load(ctx) {
    const domain = ctx.state.domain ?? ctx.config.memory_domains?.[0] ?? "";
    const q = (params) => new URLSearchParams({ domain, ...params }).toString();
    const users = await api(`/api/memory/users?${q({})}`);
    const user = ctx.state.user ?? users.users[0];
    const sessions = user === undefined ? undefined : await api(`/api/memory/sessions?${q({ user })}`);
    const chosen = ctx.state.session ?? sessions?.sessions[0]?.id;
    const session = chosen === undefined ? undefined : await api(`/api/memory/sessions/${encodeURIComponent(chosen)}?${q({})}`).catch(() => undefined);
    return { domain, users, user, sessions, session: session?.session };
  },
  render(data, ctx) {
    const { users, user, sessions, session } = data;
    const userList = h(
      "div",
      { class: "column" },
      h("h3", {}, `Users in ${data.domain}`),
      users.note ? h("p", { class: "muted small" }, users.note) : null,
      users.users.length === 0 && !users.note ? empty("No user has a chat session here.") : null,
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
    const sessionList = h(
      "div",
      { class: "column" },
      h("h3", {}, user === undefined ? "Sessions" : `Sessions of ${user}`),
      sessions === undefined || sessions.sessions.length === 0
        ? empty(user === undefined ? "Pick a user." : "No live session.")
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
      { class: "column wide" },
      h("h3", {}, session === undefined ? "Messages" : session.title || session.id),
      session === undefined
        ? empty("Pick a session.")
        : h(
            "ol",
            { class: "messages", "data-testid": "messages" },
            session.messages.map((m) =>
              h(
                "li",
                { class: `message ${m.role}`, "data-testid": "message", "data-role": m.role },
                h("div", { class: "muted small" }, `${m.role} · ${new Date(m.timestamp).toLocaleString()}`),
                h("div", { class: "content" }, m.content),
              ),
            ),
          ),
    );
    return h("div", { class: "columns" }, userList, sessionList, transcript);
  },
};
