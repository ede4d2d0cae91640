/**
 * The language model: the `openai` client against any OpenAI-compatible endpoint, and the LLM debug
 * store. See README.md.
 */
export type { LlmCompletion, LlmMessage, LlmPhase, LlmProvider, LlmRequest, LlmUsage } from "./types.js";
