/**
 * bench:memory's data: one user's facts and one domain's episodes, made up but shaped like the real
 * thing (short snake_case keys with one-line values; episodes with a summary, a request and a step,
 * about a city), with a vocabulary wide enough that a word matches a few hundred of them, not all.
 * A handful are about the bench's request (the weather in Lyon), so recall has something to find.
 * Deterministic: the same sizes give the same data.
 */
import type { Identity } from "../../runtime/context/index.js";
import type { ActivityDigest, Episode, KnowledgeFragment } from "../../runtime/memory/episodic/index.js";
import type { Fact } from "../../runtime/memory/user/store/types.js";

export const USER: Identity = { subject: "bench-user", kind: "user", via: "token" };
export const DOMAIN = "bench-travel";

const CITIES = (
  "lisbon porto madrid seville barcelona valencia paris nice marseille bordeaux toulouse nantes rome milan naples turin venice florence " +
  "berlin munich hamburg cologne vienna zurich geneva basel prague krakow warsaw budapest athens dublin london edinburgh oslo bergen " +
  "stockholm helsinki copenhagen amsterdam brussels"
).split(" ");
const TOPICS = [
  ["seat", "prefers an aisle seat on flights longer than two hours"],
  ["meal", "orders vegetarian meals and avoids peanuts"],
  ["hotel", "likes small hotels near the old town with a quiet room"],
  ["train", "takes the train for trips under four hours"],
  ["budget", "keeps hotel nights under 180 euros"],
  ["loyalty", "collects airline miles with the alliance card"],
  ["car", "rents compact cars with automatic gearboxes"],
  ["museum", "visits modern art museums on rainy afternoons"],
  ["coffee", "wants a good espresso bar within walking distance"],
  ["running", "runs ten kilometres along the river in the morning"],
  ["work", "needs a desk and fast wifi for video calls"],
  ["family", "travels with two children in school holidays"],
] as const;

/** The facts recall should find for the bench's request ("the weather in Lyon tomorrow … in Celsius"). */
const ABOUT_THE_REQUEST: readonly [string, string][] = [
  ["home_city", "Lyon, in the Croix-Rousse district"],
  ["temperature_unit", "Celsius, never Fahrenheit"],
  ["weather_alerts", "wants a warning when rain is forecast in Lyon"],
];

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `count` facts of one user, the request's own among them, each updated a minute after the last. */
export function benchFacts(count: number, now: number): Fact[] {
  const facts: Fact[] = [];
  for (let i = 0; facts.length < count - ABOUT_THE_REQUEST.length; i += 1) {
    const [topic, value] = TOPICS[i % TOPICS.length]!;
    const city = CITIES[(i * 7) % CITIES.length]!;
    facts.push(fact(`${topic}_${city}_${i}`, `in ${city[0]!.toUpperCase()}${city.slice(1)}, ${value}`, now - (count - i) * 60_000));
  }
  for (const [key, value] of ABOUT_THE_REQUEST.slice(0, Math.max(0, count - facts.length))) facts.push(fact(key, value, now - 3_600_000));
  return facts;
}

function fact(key: string, value: string, at: number): Fact {
  return { key, value, source: { session_id: "bench-session" }, created_at: iso(at), updated_at: iso(at) };
}

/** `count` episodes of the domain, oldest first, two seconds apart up to `now`; one in forty is about Lyon. */
export function benchEpisodes(count: number, now: number): Episode[] {
  const episodes: Episode[] = [];
  for (let i = 0; i < count; i += 1) {
    const at = now - (count - i) * 2_000;
    const city = i % 40 === 0 ? "lyon" : CITIES[(i * 11) % CITIES.length]!;
    const day = iso(at + 86_400_000).slice(0, 10);
    const request = `What will the weather be in ${city} on ${day}?`;
    episodes.push({
      id: `${String(at).padStart(13, "0")}-${i.toString(16).padStart(16, "0")}`,
      domain: DOMAIN,
      user: USER.subject,
      status: "completed",
      entities: [`city:${city}`],
      events: [
        { kind: "request", text: request },
        { kind: "step", capability: "weather.forecast", status: "completed", text: `{"city":"${city}","date":"${day}","celsius":${12 + (i % 20)}}` },
      ],
      summary: `Forecast for ${city} on ${day}: ${12 + (i % 20)} °C, ${i % 3 === 0 ? "rain" : "sunny"}; geocoded first, then weather.forecast.`,
      summary_outcome: "complete",
      created_at: iso(at),
    });
  }
  return episodes;
}

/** The domain's digest over the episodes, as compaction would leave it. */
export function benchDigest(last: Episode, count: number): ActivityDigest {
  return {
    text: "Most requests ask for a city's forecast a day ahead; each is answered by geo.geocode then weather.forecast. Lyon, Lisbon and Paris come up most; rain is reported about one day in three.",
    through: last.id,
    episodes: count,
    updated_at: last.created_at,
  };
}

/** What a reflection pass would have learnt about Lyon. */
export function benchKnowledge(episodeIds: readonly string[], now: number): KnowledgeFragment {
  return {
    id: `${String(now).padStart(13, "0")}-${"f".repeat(16)}`,
    domain: DOMAIN,
    entity: "city:lyon",
    text: "Lyon forecasts are asked for in Celsius; the geocoder needs the country (France) to pick the right Lyon.",
    episode_ids: episodeIds,
    pass_id: `reflect-${"a".repeat(16)}`,
    created_at: iso(now),
  };
}
