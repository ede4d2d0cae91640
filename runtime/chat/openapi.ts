/** The chat feature's paths in an agent's OpenAPI document, tagged `chat`; the stream documented as `text/event-stream`. */
import { addErrorEnvelope, ERROR_RESPONSE as ERROR, jsonContent as json, schemaRef as ref, type JsonSchema, type OpenApiParts } from "../spec/index.js";
import type { AgentSpec } from "../spec/index.js";

const STRING: JsonSchema = { type: "string" };
const TIME: JsonSchema = { type: "string", format: "date-time" };
const ID: JsonSchema = { type: "string", format: "uuid" };
const OBJECT: JsonSchema = { type: "object" };

const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ChatMessage: {
    type: "object",
    properties: { id: ID, role: { type: "string", enum: ["user", "assistant"] }, content: STRING, timestamp: TIME, metadata: OBJECT },
    required: ["id", "role", "content", "timestamp", "metadata"],
  },
  ChatStreamRequest: {
    type: "object",
    properties: {
      session_id: { type: "string", description: "Absent, unknown or expired: a new session is created" },
      message: { type: "string", minLength: 1, maxLength: 16000 },
    },
    required: ["message"],
  },
  AiSdkChatRequest: {
    type: "object",
    description:
      "What the AI SDK's useChat (DefaultChatTransport) sends: the answer is its UI message stream. The new message is the last `messages` entry with role user (its text parts); the history is the server's session for (caller, `id`).",
    properties: {
      id: { type: "string", maxLength: 200, description: "The chat's id: the same id, for the same caller, continues the same session" },
      messages: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: STRING,
            role: { type: "string", enum: ["system", "user", "assistant"] },
            parts: { type: "array", items: { type: "object", properties: { type: STRING, text: STRING }, required: ["type"] } },
          },
          required: ["role"],
        },
      },
      trigger: { type: "string", enum: ["submit-message", "regenerate-message"] },
      messageId: STRING,
    },
    required: ["messages"],
  },
  ChatQueryRequest: {
    type: "object",
    properties: {
      session_id: { type: "string", description: "A known session makes the call session-aware; an unknown one is ignored" },
      message: { type: "string", minLength: 1, maxLength: 16000 },
    },
    required: ["message"],
  },
  ChatQueryResponse: {
    type: "object",
    properties: { response: STRING, request_id: STRING, session_id: ID, metadata: OBJECT },
    required: ["response", "request_id", "metadata"],
  },
  ChatSessionCreated: {
    type: "object",
    properties: { session_id: ID, created_at: TIME, expires_at: TIME },
    required: ["session_id", "created_at", "expires_at"],
  },
  ChatSessionInfo: {
    type: "object",
    properties: { session_id: ID, created_at: TIME, updated_at: TIME, message_count: { type: "integer" }, metadata: OBJECT },
    required: ["session_id", "created_at", "updated_at", "message_count", "metadata"],
  },
  ChatHistory: {
    type: "object",
    properties: { session_id: ID, messages: { type: "array", items: { $ref: "#/components/schemas/ChatMessage" } }, count: { type: "integer" } },
    required: ["session_id", "messages", "count"],
  },
  ChatSessionList: {
    type: "object",
    properties: {
      sessions: {
        type: "array",
        items: {
          type: "object",
          properties: { id: ID, title: STRING, message_count: { type: "integer" }, created_at: TIME, updated_at: TIME, preview: STRING },
          required: ["id", "title", "message_count", "created_at", "updated_at", "preview"],
        },
      },
      count: { type: "integer" },
      offset: { type: "integer" },
      limit: { type: "integer" },
    },
    required: ["sessions", "count", "offset", "limit"],
  },
};

const SSE_DESCRIPTION =
  "Server-sent events: `session` {session_id, created} first, then `status` {message}, `step` {step_id, tool, capability, status, duration_ms} per finished plan step, `chunk` {text} per piece of the answer, and `done` {session_id, message} with the stored assistant message, or, when the run paused for human approval, `checkpoint` {status, checkpoint_id, checkpoint, conversation_id, session_id} instead of `done`; after the headers a failure is `error` {code, message, retryable: false}. Comment lines are heartbeats.";

const AI_SDK_DESCRIPTION =
  "A useChat body (`{id, messages}`, no `message`) or `?protocol=ai-sdk` selects the AI SDK's UI message stream instead (header `x-vercel-ai-ui-message-stream: v1`): `start`, text parts as `text-start`/`text-delta`/`text-end`, one dynamic tool part per plan step (`<component>.<capability>`, its input and output), `tool-approval-request` and `data-checkpoint` when a step waits for approval, `error`, then `finish` and `[DONE]`.";

const PROTOCOL_PARAMETER = {
  name: "protocol",
  in: "query",
  required: false,
  description: "`ai-sdk`: answer in the AI SDK's UI message stream whatever the body (a useChat body selects it without this)",
  schema: { type: "string", enum: ["ai-sdk"] },
};

const userHeader = (required: boolean) => ({ name: "X-User-ID", in: "header", required, schema: { type: "string", pattern: "^[A-Za-z0-9_.@:+-]{1,128}$" } });
const sessionPath = { name: "id", in: "path", required: true, schema: ID };

const ok = (description: string, schema: string) => ({ description, content: json(ref(schema)) });

/** The chat routes' operations, in the order the document lists them. */
const CHAT_PATHS = {
  "/chat/session": {
    post: {
      operationId: "createChatSession",
      summary: "Start a chat session",
      tags: ["chat"],
      parameters: [userHeader(false)],
      requestBody: { required: false, content: json({ type: "object", properties: { metadata: OBJECT } }) },
      responses: { "200": ok("The new session", "ChatSessionCreated"), "400": ERROR },
    },
  },
  "/chat/stream": {
    post: {
      operationId: "streamChat",
      summary: "Send a message; the answer streams back",
      tags: ["chat"],
      parameters: [userHeader(false), PROTOCOL_PARAMETER],
      requestBody: { required: true, content: json({ oneOf: [ref("ChatStreamRequest"), ref("AiSdkChatRequest")] }) },
      responses: {
        "200": {
          description: `${SSE_DESCRIPTION} ${AI_SDK_DESCRIPTION}`,
          headers: { "x-vercel-ai-ui-message-stream": { description: "`v1` when the answer is the AI SDK's UI message stream", schema: STRING } },
          content: { "text/event-stream": { schema: STRING } },
        },
        "400": ERROR,
        "413": ERROR,
        "503": ERROR,
      },
    },
  },
  "/chat/session/{id}": {
    get: {
      operationId: "getChatSession",
      summary: "A session without its transcript",
      tags: ["chat"],
      parameters: [sessionPath],
      responses: { "200": ok("The session", "ChatSessionInfo"), "404": ERROR },
    },
  },
  "/chat/session/{id}/history": {
    get: {
      operationId: "getChatHistory",
      summary: "A session's messages, oldest first",
      tags: ["chat"],
      parameters: [sessionPath],
      responses: { "200": ok("The messages", "ChatHistory"), "404": ERROR },
    },
  },
  "/chat/session/{id}/title": {
    put: {
      operationId: "setChatTitle",
      summary: "Rename a session",
      tags: ["chat"],
      parameters: [sessionPath],
      requestBody: {
        required: true,
        content: json({ type: "object", properties: { title: { type: "string", minLength: 1, maxLength: 200 } }, required: ["title"] }),
      },
      responses: {
        "200": { description: "Renamed", content: json({ type: "object", properties: { session_id: ID, title: STRING, updated_at: TIME } }) },
        "400": ERROR,
        "404": ERROR,
      },
    },
  },
  "/chat/session/delete": {
    post: {
      operationId: "deleteChatSession",
      summary: "Delete a session",
      tags: ["chat"],
      requestBody: { required: true, content: json({ type: "object", properties: { session_id: ID }, required: ["session_id"] }) },
      responses: {
        "200": { description: "Deleted", content: json({ type: "object", properties: { session_id: ID, deleted: { type: "boolean" } } }) },
        "404": ERROR,
      },
    },
  },
  "/chat/sessions": {
    get: {
      operationId: "listChatSessions",
      summary: "The user's sessions, most recently updated first",
      tags: ["chat"],
      parameters: [
        userHeader(true),
        { name: "offset", in: "query", required: false, schema: { type: "integer", minimum: 0, default: 0 } },
        { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 50, default: 20 } },
      ],
      responses: { "200": ok("A page of sessions", "ChatSessionList"), "400": ERROR },
    },
  },
  "/query": {
    post: {
      operationId: "query",
      summary: "Ask the agent and wait for the whole answer (agent-to-agent)",
      tags: ["chat"],
      requestBody: { required: true, content: json(ref("ChatQueryRequest")) },
      responses: { "200": ok("The answer", "ChatQueryResponse"), "400": ERROR, "413": ERROR, "503": ERROR },
    },
  },
};

export function addChatPaths(agent: AgentSpec, { paths, schemas }: OpenApiParts): void {
  if (agent.chat !== true) return;
  addErrorEnvelope(schemas);
  Object.assign(schemas, SCHEMAS);
  // A copy: whoever receives the document may change it, and the next one must not see that.
  Object.assign(paths, structuredClone(CHAT_PATHS));
}
