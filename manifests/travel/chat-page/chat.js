// The travel agent's chat in the AI SDK UI message stream protocol, parsed by hand (no build step, no
// dependency): each turn POSTs what useChat sends ({id, messages, trigger}) to the agent's
// /chat/stream and applies the stream's chunks to the assistant message, as useChat does. A tool part
// awaiting approval gets Approve/Reject buttons: the decision goes to POST /hitl/command, and an
// approved run is resumed on GET /hitl/auto-resume/<checkpoint>/stream (the spec's SSE events).
// Everything the agent sends is shown with textContent, never as HTML.

const config = await (await fetch("config.json")).json();
const agent = config.agent_url;
const chatId = crypto.randomUUID();
/** The chat's messages, as useChat holds them (UIMessage objects). */
const messages = [];
const list = document.getElementById("messages");
const status = document.getElementById("status");
const form = document.getElementById("composer");
const input = document.getElementById("prompt");

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const pretty = (value) => JSON.stringify(value, null, 2) ?? "";

function setState(state, note = "") {
  document.body.dataset.state = state;
  status.textContent = note;
}

/** Each server-sent event of a response body: its name (or "message") and its data text. Comments (heartbeats) are skipped. */
async function* events(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      let name = "message";
      const data = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length > 0) yield { name, data: data.join("\n") };
    }
  }
}

/** The assistant message being streamed: its UIMessage parts and their views. */
function createAssistant() {
  const message = { id: "", role: "assistant", parts: [], metadata: {} };
  const view = element("section", "message assistant");
  list.append(view);
  const texts = new Map();
  const tools = new Map();

  function renderTool(part) {
    let node = tools.get(part.toolCallId)?.node;
    if (node === undefined) {
      node = element("details", "tool");
      node.open = true;
      view.append(node);
    }
    node.replaceChildren();
    node.dataset.tool = part.toolName;
    node.dataset.state = part.state;
    const label = part.state === "approval-responded" ? (part.approval.approved ? "approved" : "rejected") : part.state;
    node.append(element("summary", "", `${part.toolName} (${label})`));
    node.append(element("pre", "input", `input: ${pretty(part.input)}`));
    if (part.state === "output-available") node.append(element("pre", "output", `output: ${pretty(part.output)}`));
    if (part.state === "output-error") node.append(element("pre", "output error", part.errorText));
    if (part.state === "approval-requested") node.append(approval(part));
    tools.set(part.toolCallId, { part, node });
  }

  function approval(part) {
    const box = element("div", "approval");
    box.append(element("p", "", `Needs your approval: ${part.approval.reason ?? ""}`));
    for (const action of ["approve", "reject"]) {
      const button = element("button", "", action === "approve" ? "Approve" : "Reject");
      button.type = "button";
      button.dataset.action = action;
      button.addEventListener("click", () => decide(part, action === "approve"));
      box.append(button);
    }
    return box;
  }

  function addText(delta, id = `text-${texts.size + 1}-local`) {
    let entry = texts.get(id);
    if (entry === undefined) {
      entry = { part: { type: "text", text: "" }, node: element("div", "text") };
      message.parts.push(entry.part);
      view.append(entry.node);
      texts.set(id, entry);
    }
    entry.part.text += delta;
    entry.node.textContent = entry.part.text;
  }

  function tool(chunk, change) {
    const known = tools.get(chunk.toolCallId)?.part;
    const part = known ?? { type: "dynamic-tool", toolCallId: chunk.toolCallId, toolName: chunk.toolName, state: "input-available", input: chunk.input };
    if (known === undefined) message.parts.push(part);
    Object.assign(part, change);
    renderTool(part);
  }

  /** Applies one chunk of the UI message stream. */
  function apply(chunk) {
    switch (chunk.type) {
      case "start":
        message.id = chunk.messageId ?? message.id;
        Object.assign(message.metadata, chunk.messageMetadata);
        break;
      case "text-start":
        addText("", chunk.id);
        break;
      case "text-delta":
        addText(chunk.delta, chunk.id);
        break;
      case "tool-input-available":
        tool(chunk, { state: "input-available", input: chunk.input });
        break;
      case "tool-output-available":
        tool(chunk, { state: "output-available", output: chunk.output });
        break;
      case "tool-output-error":
        tool(chunk, { state: "output-error", errorText: chunk.errorText });
        break;
      case "tool-approval-request":
        tool(chunk, { state: "approval-requested", approval: { id: chunk.approvalId, reason: chunk.reason } });
        break;
      case "data-status":
      case "data-progress":
        status.textContent = chunk.data.message ?? chunk.data.reason ?? "";
        break;
      case "error":
        view.append(element("p", "error", chunk.errorText));
        break;
      case "finish":
        Object.assign(message.metadata, chunk.messageMetadata);
        break;
      default:
        // data-checkpoint, data-clarification and anything newer: kept in the message, not drawn.
        if (chunk.type.startsWith("data-") && !chunk.transient) message.parts.push({ type: chunk.type, id: chunk.id, data: chunk.data });
    }
  }

  /** A human's decision on a checkpoint: POST /hitl/command, then the approved run resumed over SSE. */
  async function decide(part, approved) {
    setState("deciding", approved ? "approving…" : "rejecting…");
    const answer = await fetch(`${agent}/hitl/command`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ checkpoint_id: part.approval.id, action: approved ? "approve" : "reject" }),
    });
    if (!answer.ok) {
      view.append(element("p", "error", `the decision was refused (${answer.status})`));
      return setState("idle");
    }
    tool(part, { state: "approval-responded", approval: { ...part.approval, approved } });
    if (!approved) return setState("idle", "rejected: the step did not run");
    setState("streaming", "resuming the approved run…");
    const resumed = await fetch(`${agent}/hitl/auto-resume/${encodeURIComponent(part.approval.id)}/stream`, { headers: { accept: "text/event-stream" } });
    for await (const event of events(resumed)) {
      const data = JSON.parse(event.data);
      if (event.name === "done") addText(typeof data.response === "string" ? data.response : pretty(data), `resumed-${part.approval.id}`);
      else if (event.name === "error") view.append(element("p", "error", `${data.code}: ${data.message}`));
      else if (event.name === "checkpoint") view.append(element("p", "error", `another approval is needed: checkpoint ${data.checkpoint_id}`));
    }
    setState("idle");
  }

  return { message, apply };
}

async function send(text) {
  const user = { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }] };
  messages.push(user);
  const view = element("section", "message user");
  view.append(element("div", "text", text));
  list.append(view);
  setState("streaming", "thinking…");
  const assistant = createAssistant();
  try {
    const response = await fetch(`${agent}/chat/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: chatId, messages, trigger: "submit-message" }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      assistant.apply({ type: "error", errorText: `${body.error?.code ?? response.status}: ${body.error?.message ?? "refused"}` });
      return;
    }
    for await (const event of events(response)) {
      if (event.data === "[DONE]") break;
      assistant.apply(JSON.parse(event.data));
    }
    messages.push(assistant.message);
  } catch (error) {
    assistant.apply({ type: "error", errorText: String(error) });
  } finally {
    const waiting = assistant.message.parts.some((p) => p.state === "approval-requested");
    setState(waiting ? "awaiting-approval" : "idle", waiting ? "waiting for your approval" : "");
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = input.value.trim();
  if (text === "" || document.body.dataset.state === "streaming") return;
  input.value = "";
  void send(text);
});
setState("idle");
