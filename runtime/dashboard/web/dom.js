// Tiny DOM helpers. Every value from the API becomes a text node or an attribute, never HTML:
// prompts, messages and metadata are shown as they are, and cannot inject markup.

/** `h("div", { class: "x", "data-testid": "y", onclick: fn }, child, "text", [more])` */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

const SVG = "http://www.w3.org/2000/svg";

export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** "12s ago", "3m ago", from an ISO timestamp. */
export function ago(iso) {
  const ms = Date.now() - Date.parse(iso);
  if (!Number.isFinite(ms)) return "";
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

export function duration(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "";
  return ms < 1000 ? `${Math.round(ms * 10) / 10} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function badge(text, kind = text) {
  return h("span", { class: `badge badge-${kind}`, "data-badge": kind }, text);
}

export function pretty(value) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** An empty state that says what would be here. */
export function empty(text) {
  return h("p", { class: "empty", "data-testid": "empty" }, text);
}

/** The API's JSON, or an Error carrying the envelope's code and message. */
export async function api(path, init) {
  const response = await fetch(path, init);
  const body = await response.json().catch(() => undefined);
  if (!response.ok) {
    const error = new Error(body?.error?.message ?? `${path} answered ${response.status}`);
    error.code = body?.error?.code;
    throw error;
  }
  return body;
}
