/** Chat sessions streamed over server-sent events, and `/query` for agent-to-agent calls. */
export * from "./store/index.js";
