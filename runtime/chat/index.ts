/** Chat sessions streamed over server-sent events, and `/query` for agent-to-agent calls. */
export * from "./store/index.js";
export { createChatExtension, type ChatExtensionOptions } from "./extension.js";
export { chatFeature, type ChatServeOptions } from "./feature.js";
export { boundedHistory, conversationRequest } from "./turn.js";
export { ANONYMOUS_USER, USER_HEADER } from "./requests.js";
export * from "./wire.js";
