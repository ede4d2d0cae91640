/**
 * The A2A tasks of this process, owned by the caller that made them (the proven identity's owner key,
 * as the route names the SDK's user) and bounded: at most `maxTasks` kept, none past `ttlMs` since its
 * last change. The oldest-changed task goes first when the count is full, so a client cannot make the
 * agent hold more than that however many messages it sends.
 */
import type { ListTasksRequest, ListTasksResponse, Task } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import { checkTaskStoreOptions, type TaskStoreOptions } from "./options.js";

export type { TaskStoreOptions } from "./options.js";

export const DEFAULT_MAX_TASKS = 1000;
export const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;
const MAX_PAGE = 100;

interface Entry {
  readonly owner: string;
  readonly task: Task;
  readonly savedAt: number;
}

const ownerOf = (context: ServerCallContext): string => context.user?.userName ?? "anonymous";

export function createBoundedTaskStore({
  maxTasks = DEFAULT_MAX_TASKS,
  ttlMs = DEFAULT_TASK_TTL_MS,
  now = Date.now,
}: TaskStoreOptions = {}): TaskStore & { readonly size: number } {
  checkTaskStoreOptions({ maxTasks, ttlMs });
  // Insertion order is change order: a saved task is deleted and set again.
  const entries = new Map<string, Entry>();
  const prune = (): void => {
    const oldest = now() - ttlMs;
    for (const [id, entry] of entries) {
      if (entry.savedAt > oldest && entries.size <= maxTasks) break;
      entries.delete(id);
    }
  };
  const visible = (id: string, context: ServerCallContext): Entry | undefined => {
    prune();
    const entry = entries.get(id);
    return entry !== undefined && entry.owner === ownerOf(context) ? entry : undefined;
  };
  return {
    get size() {
      return entries.size;
    },
    async save(task, context) {
      const owner = ownerOf(context);
      const existing = entries.get(task.id);
      // A task id is its creator's: another caller naming it saves nothing over it.
      if (existing !== undefined && existing.owner !== owner) return;
      entries.delete(task.id);
      entries.set(task.id, { owner, task: structuredClone(task), savedAt: now() });
      prune();
    },
    async load(taskId, context) {
      const entry = visible(taskId, context);
      return entry === undefined ? undefined : structuredClone(entry.task);
    },
    async list(params: ListTasksRequest, context): Promise<ListTasksResponse> {
      prune();
      const owner = ownerOf(context);
      const pageSize = Math.min(Math.max(params.pageSize ?? MAX_PAGE, 1), MAX_PAGE);
      const mine = [...entries.values()].filter((e) => e.owner === owner && (!params.contextId || e.task.contextId === params.contextId)).reverse();
      return { tasks: mine.slice(0, pageSize).map((e) => structuredClone(e.task)), nextPageToken: "", pageSize, totalSize: mine.length };
    },
  };
}
