/** Places, weather, flights and money: the tools whose parameters models most often guess the format of. */
import { checkDate, defineTool, digest, invalid, notFound, type BenchTool } from "./define.js";

interface City {
  readonly name: string;
  readonly country: string;
  readonly lat: number;
  readonly lon: number;
  /** °C now, conditions now, and the forecast's conditions and chance of rain. */
  readonly celsius: number;
  readonly conditions: string;
  readonly forecast: string;
  readonly rain: number;
  readonly airport: string;
}

const CITIES: readonly City[] = [
  { name: "Paris", country: "FR", lat: 48.8566, lon: 2.3522, celsius: 18.5, conditions: "cloudy", forecast: "rain", rain: 80, airport: "CDG" },
  { name: "London", country: "GB", lat: 51.5072, lon: -0.1276, celsius: 14, conditions: "drizzle", forecast: "showers", rain: 60, airport: "LHR" },
  { name: "New York", country: "US", lat: 40.7128, lon: -74.006, celsius: 24, conditions: "sunny", forecast: "sunny", rain: 5, airport: "JFK" },
  { name: "Sydney", country: "AU", lat: -33.8688, lon: 151.2093, celsius: 12, conditions: "windy", forecast: "clear", rain: 10, airport: "SYD" },
  { name: "Tokyo", country: "JP", lat: 35.6762, lon: 139.6503, celsius: 27, conditions: "humid", forecast: "thunderstorms", rain: 70, airport: "NRT" },
  { name: "Lisbon", country: "PT", lat: 38.7223, lon: -9.1393, celsius: 22, conditions: "sunny", forecast: "sunny", rain: 0, airport: "LIS" },
  { name: "Berlin", country: "DE", lat: 52.52, lon: 13.405, celsius: 16, conditions: "overcast", forecast: "dry", rain: 15, airport: "BER" },
];

const PLACES = [
  { name: "Louvre Museum", kind: "museum", lat: 48.8606, lon: 2.3376, city: "Paris" },
  { name: "Tower of London", kind: "castle", lat: 51.5081, lon: -0.0759, city: "London" },
  { name: "Belém Tower", kind: "monument", lat: 38.6916, lon: -9.216, city: "Lisbon" },
];

function cityAt(lat: number, lon: number): City {
  if (lat < -90 || lat > 90) throw invalid("lat", "must be between -90 and 90");
  if (lon < -180 || lon > 180) throw invalid("lon", "must be between -180 and 180");
  const near = CITIES.find((c) => Math.abs(c.lat - lat) < 0.5 && Math.abs(c.lon - lon) < 0.5);
  if (near === undefined) throw notFound(`no weather station near ${lat}, ${lon}`);
  return near;
}

const inUnits = (celsius: number, units: string): number => (units === "imperial" ? Math.round((celsius * 9) / 5 + 32) : celsius);

export const geo: BenchTool = defineTool("geo", "Geocoding: the coordinates of a city", {
  geocode: {
    description: "Coordinates of a city by name",
    input: { city: "string", "country?": { type: "string", description: "ISO 3166 alpha-2 code" } },
    output: { lat: "number", lon: "number", name: "string", country: "string" },
    handler: ({ city }) => {
      const found = CITIES.find((c) => c.name.toLowerCase() === String(city).trim().toLowerCase());
      if (found === undefined) throw notFound(`no city named ${city}`);
      return { lat: found.lat, lon: found.lon, name: found.name, country: found.country };
    },
  },
});

export const places: BenchTool = defineTool("places", "Points of interest search", {
  search: {
    description: "Points of interest matching a query (free-form results)",
    input: { query: "string" },
    handler: ({ query }) => {
      const words = String(query).toLowerCase().split(/\s+/);
      const results = PLACES.filter((p) => words.some((w) => w.length > 2 && `${p.name} ${p.kind} ${p.city}`.toLowerCase().includes(w)));
      return { query, results: results.map(({ name, kind, lat, lon }) => ({ name, kind, lat, lon })) };
    },
  },
});

const UNITS = { type: "string", enum: ["metric", "imperial"], description: "metric (°C) or imperial (°F)" } as const;

export const weather: BenchTool = defineTool("weather", "Current weather and forecasts by coordinates", {
  current: {
    description: "Current weather at a latitude/longitude",
    input: { lat: "number", lon: "number", units: UNITS },
    output: { temperature: "number", conditions: "string", units: "string", station: "string" },
    handler: ({ lat, lon, units }) => {
      const city = cityAt(lat, lon);
      return { temperature: inUnits(city.celsius, units), conditions: city.conditions, units, station: city.name };
    },
  },
  forecast: {
    description: "Forecast for one day (YYYY-MM-DD, within 7 days) at a latitude/longitude",
    input: { lat: "number", lon: "number", date: "string", units: UNITS },
    output: { date: "string", high: "number", low: "number", conditions: "string", rain_chance: "integer", station: "string" },
    handler: ({ lat, lon, date, units }) => {
      checkDate("date", date, 7);
      const city = cityAt(lat, lon);
      return {
        date,
        high: inUnits(city.celsius + 3, units),
        low: inUnits(city.celsius - 5, units),
        conditions: city.forecast,
        rain_chance: city.rain,
        station: city.name,
      };
    },
  },
});

const AIRPORTS = new Set(CITIES.map((c) => c.airport));

function airport(field: string, code: string): string {
  if (AIRPORTS.has(code)) return code;
  const city = CITIES.find((c) => c.name.toLowerCase() === code.toLowerCase() || c.airport === code.toUpperCase());
  throw invalid(field, `must be a 3-letter IATA airport code${city === undefined ? "" : ` (e.g. ${city.airport} for ${city.name})`}`);
}

export const flights: BenchTool = defineTool("flights", "Flight search and booking", {
  search: {
    description: "Flights between two airports on a date",
    input: {
      origin: { type: "string", description: "IATA airport code" },
      destination: { type: "string", description: "IATA airport code" },
      date: { type: "string", description: "departure date" },
      "passengers?": "integer",
      "cabin?": { type: "string", enum: ["economy", "premium_economy", "business", "first"] },
    },
    output: {
      flights: { type: "array", items: { type: "object", fields: { flight_id: "string", departs: "string", price: "number", currency: "string" } } },
      count: "integer",
    },
    handler: ({ origin, destination, date, cabin = "economy" }) => {
      airport("origin", origin);
      airport("destination", destination);
      checkDate("date", date);
      const base = 300 + (digest(`${origin}${destination}${date}`) % 400) + (cabin === "business" ? 1500 : cabin === "first" ? 3000 : 0);
      const list = [
        { flight_id: `FL-${origin}${destination}1`, departs: `${date}T08:15`, price: base + 120, currency: "EUR" },
        { flight_id: `FL-${origin}${destination}2`, departs: `${date}T13:40`, price: base, currency: "EUR" },
        { flight_id: `FL-${origin}${destination}3`, departs: `${date}T19:05`, price: base + 245, currency: "EUR" },
      ];
      return { flights: list, count: list.length };
    },
  },
  book: {
    description: "Books a flight found by search",
    input: { flight_id: "string", passenger_name: "string", "passengers?": "integer" },
    output: { booking_id: "string", flight_id: "string", status: "string" },
    handler: ({ flight_id, passenger_name }) => {
      const match = /^FL-([A-Z]{3})([A-Z]{3})[1-3]$/.exec(flight_id);
      if (match === null || !AIRPORTS.has(match[1]!) || !AIRPORTS.has(match[2]!)) throw notFound(`no flight ${flight_id}; search flights first`);
      if (String(passenger_name).trim().split(/\s+/).length < 2) throw invalid("passenger_name", "must be the passenger's full name");
      return { booking_id: `BK-${digest(flight_id + passenger_name)}`, flight_id, status: "confirmed" };
    },
  },
});

/** Units of each currency per US dollar. */
const RATES: Readonly<Record<string, number>> = { USD: 1, EUR: 0.92, GBP: 0.79, JPY: 157, CHF: 0.9, AUD: 1.51 };

function currencyCode(field: string, code: string): string {
  if (RATES[code] !== undefined) return code;
  if (RATES[code.toUpperCase()] !== undefined) throw invalid(field, `must be an upper-case ISO 4217 code (${code.toUpperCase()}, not ${code})`);
  throw invalid(field, "must be an ISO 4217 currency code such as USD, EUR or GBP");
}

export const currency: BenchTool = defineTool("currency", "Currency conversion at today's rates", {
  convert: {
    description: "Converts an amount between two currencies (ISO 4217 codes)",
    input: { amount: "number", from: "string", to: "string" },
    output: { amount: "number", from: "string", to: "string", rate: "number", result: "number" },
    handler: ({ amount, from, to }) => {
      currencyCode("from", from);
      currencyCode("to", to);
      if (amount <= 0) throw invalid("amount", "must be positive");
      const rate = RATES[to]! / RATES[from]!;
      return { amount, from, to, rate: Math.round(rate * 10_000) / 10_000, result: Math.round(amount * rate * 100) / 100 };
    },
  },
});
