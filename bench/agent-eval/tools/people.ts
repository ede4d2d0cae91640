/** The caller, colleagues, mail, calendar and the office thermostat: names where addresses are needed, times and units. */
import { checkDate, checkEmail, defineTool, digest, invalid, notFound, TODAY, type BenchTool } from "./define.js";

const PEOPLE = [
  { user_id: "U-1001", name: "Ana Silva", email: "ana.silva@example.com", title: "Buyer", manager_email: "dana.whitfield@example.com" },
  { user_id: "U-1002", name: "Dana Whitfield", email: "dana.whitfield@example.com", title: "Head of Purchasing", manager_email: "li.chen@example.com" },
  { user_id: "U-1003", name: "Li Chen", email: "li.chen@example.com", title: "COO" },
];

export const users: BenchTool = defineTool("users", "The company directory and the signed-in user", {
  me: {
    description: "The signed-in user (no home address on file unless they gave one)",
    input: {},
    output: { user_id: "string", name: "string", email: "string", "home_address?": "string" },
    handler: () => {
      const { user_id, name, email } = PEOPLE[0]!;
      return { user_id, name, email };
    },
  },
  lookup: {
    description: "A colleague by name",
    input: { name: "string" },
    output: { user_id: "string", name: "string", email: "string", title: "string", "manager_email?": "string" },
    handler: ({ name }) => {
      const wanted = String(name).trim().toLowerCase();
      const found = PEOPLE.find((p) => p.name.toLowerCase() === wanted || p.name.split(" ")[0]!.toLowerCase() === wanted);
      if (found === undefined) throw notFound(`no one named ${name}`);
      return found;
    },
  },
});

export const email: BenchTool = defineTool("email", "Sends email", {
  send: {
    description: "Sends an email",
    input: { to: { type: "string", description: "email address" }, subject: "string", body: "string" },
    output: { message_id: "string", to: "string" },
    handler: ({ to, subject }) => ({ message_id: `MSG-${digest(checkEmail("to", to) + subject)}`, to }),
  },
});

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2})?$/;

export const calendar: BenchTool = defineTool("calendar", "The user's calendar", {
  create_event: {
    description: "Creates an event",
    input: {
      title: "string",
      start: { type: "string", description: "local date-time" },
      duration_minutes: "integer",
      "attendees?": { type: "array", items: "string" },
    },
    output: { event_id: "string", start: "string", duration_minutes: "integer" },
    handler: ({ title, start, duration_minutes, attendees = [] }) => {
      const match = DATE_TIME.exec(start);
      if (match === null) throw invalid("start", `must be an ISO 8601 date-time such as ${TODAY}T15:00:00`);
      checkDate("start", match[1]!);
      attendees.forEach((a: string, i: number) => checkEmail(`attendees/${i}`, a));
      if (duration_minutes < 5 || duration_minutes > 600) throw invalid("duration_minutes", "must be from 5 to 600");
      return { event_id: `EV-${digest(title + start)}`, start, duration_minutes };
    },
  },
});

const RANGE = { C: [5, 32], F: [41, 90] } as const;

export const thermostat: BenchTool = defineTool("thermostat", "Office climate control", {
  set: {
    description: "Sets a room's target temperature",
    input: { temperature: "number", scale: { type: "string", enum: ["C", "F"] }, "room?": "string" },
    output: { room: "string", target: "number", scale: "string" },
    handler: ({ temperature, scale, room = "office" }) => {
      const [low, high] = RANGE[scale as "C" | "F"];
      if (temperature < low || temperature > high) throw invalid("temperature", `must be from ${low} to ${high} on scale ${scale}`);
      const known = ["office", "meeting room", "lobby"];
      if (!known.includes(String(room).toLowerCase())) throw notFound(`no room ${room}; rooms: ${known.join(", ")}`);
      return { room, target: temperature, scale };
    },
  },
});
