/**
 * An agent with chat, natural mode and HITL on loopback (the `worker` tools of test/orchestration,
 * `echo` sensitive, a scripted model), and the `ai` package's own client for `/chat/stream`: its
 * `DefaultChatTransport` sends what `useChat` sends and parses the stream; `readUIMessageStream`
 * assembles the assistant message from the chunks, as `useChat` does.
 */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { SENSITIVE_ECHO } from "../hitl/support.js";
import { agentSpec, startTools, type Tools } from "../orchestration/support.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { QUIET_AGENT } from "../support/serve.js";
import { within } from "../support/wait.js";

export interface ChatAgent {
  readonly tools: Tools;
  readonly llm: ScriptedLlm;
  readonly running: RunningComponent;
  close(): Promise<void>;
}

/** The agent: `chat: true`, natural mode, `echo` needs approval; CORS allows `corsOrigins` (a chat page). */
export async function startChatAgent({ corsOrigins = [] as string[] } = {}): Promise<ChatAgent> {
  const tools = await startTools();
  const llm = await startScriptedLlm();
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  const base = agentSpec("ai-sdk-chat", { natural: true });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl: SENSITIVE_ECHO, chat: true as const } };
  const running = (await serveAgent(spec, tools.specs, {
    ...QUIET_AGENT,
    llm: provider,
    corsOrigins,
    orchestration: { baseUrls: tools.baseUrls, executionStore: false, adaptive: { maxSemanticRetries: 0 } },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
  } as never)) as RunningComponent;
  return {
    tools,
    llm,
    running,
    async close() {
      await running.close();
      await tools.close();
      await llm.close();
    },
  };
}

export const userMessage = (id: string, text: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });

export interface ChatTurn {
  /** Every chunk, in order, as the transport parsed them. */
  readonly chunks: UIMessageChunk[];
  /** The assistant message as `useChat` would hold it once the stream ended. */
  readonly message: UIMessage | undefined;
  readonly headers: Headers;
  /** What `readUIMessageStream` reported through `onError` (the stream's `error` chunks). */
  readonly errors: string[];
}

/** One `useChat` turn: the transport posts `{id, messages, trigger}` to `<agent>/chat/stream` and reads the answer. */
export async function sendChat(agentUrl: string, chatId: string, messages: UIMessage[], { headers = {} as Record<string, string> } = {}): Promise<ChatTurn> {
  let responseHeaders = new Headers();
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${agentUrl}/chat/stream`,
    headers,
    // The real fetch; only the response's headers are kept for the test to read.
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      responseHeaders = response.headers;
      return response;
    },
  });
  const stream = await transport.sendMessages({ chatId, messages, trigger: "submit-message", messageId: undefined, abortSignal: undefined });
  const [forChunks, forMessage] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const errors: string[] = [];
  const collect = async (): Promise<void> => {
    for await (const chunk of forChunks) chunks.push(chunk);
  };
  const assemble = async (): Promise<UIMessage | undefined> => {
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream: forMessage, onError: (error) => errors.push(String((error as Error).message)) })) last = message;
    return last;
  };
  const [, message] = await within("the chat stream to end", Promise.all([collect(), assemble()]));
  return { chunks, message, headers: responseHeaders, errors };
}
