/** The offline data the example tools serve: small, fixed, realistic enough to plan a trip with. */

export interface Place {
  readonly name: string;
  readonly country: string;
  readonly lat: number;
  readonly lon: number;
}

export const PLACES: readonly Place[] = [
  { name: "Paris", country: "FR", lat: 48.8566, lon: 2.3522 },
  { name: "Lyon", country: "FR", lat: 45.764, lon: 4.8357 },
  { name: "Tokyo", country: "JP", lat: 35.6762, lon: 139.6503 },
  { name: "Kyoto", country: "JP", lat: 35.0116, lon: 135.7681 },
  { name: "London", country: "GB", lat: 51.5072, lon: -0.1276 },
  { name: "New York", country: "US", lat: 40.7128, lon: -74.006 },
  { name: "San Francisco", country: "US", lat: 37.7749, lon: -122.4194 },
  { name: "Berlin", country: "DE", lat: 52.52, lon: 13.405 },
  { name: "Lisbon", country: "PT", lat: 38.7223, lon: -9.1393 },
  { name: "Sydney", country: "AU", lat: -33.8688, lon: 151.2093 },
  { name: "Mexico City", country: "MX", lat: 19.4326, lon: -99.1332 },
  { name: "Cairo", country: "EG", lat: 30.0444, lon: 31.2357 },
];

export interface Country {
  readonly name: string;
  readonly capital: string;
  readonly population: number;
  readonly currency: string;
  readonly languages: readonly string[];
  readonly region: string;
}

export const COUNTRIES: Readonly<Record<string, Country>> = {
  FR: { name: "France", capital: "Paris", population: 68_170_000, currency: "EUR", languages: ["French"], region: "Europe" },
  JP: { name: "Japan", capital: "Tokyo", population: 124_500_000, currency: "JPY", languages: ["Japanese"], region: "Asia" },
  GB: { name: "United Kingdom", capital: "London", population: 68_350_000, currency: "GBP", languages: ["English"], region: "Europe" },
  US: { name: "United States", capital: "Washington, D.C.", population: 334_900_000, currency: "USD", languages: ["English"], region: "Americas" },
  DE: { name: "Germany", capital: "Berlin", population: 84_480_000, currency: "EUR", languages: ["German"], region: "Europe" },
  PT: { name: "Portugal", capital: "Lisbon", population: 10_470_000, currency: "EUR", languages: ["Portuguese"], region: "Europe" },
  AU: { name: "Australia", capital: "Canberra", population: 26_640_000, currency: "AUD", languages: ["English"], region: "Oceania" },
  MX: { name: "Mexico", capital: "Mexico City", population: 129_700_000, currency: "MXN", languages: ["Spanish"], region: "Americas" },
  EG: { name: "Egypt", capital: "Cairo", population: 112_700_000, currency: "EGP", languages: ["Arabic"], region: "Africa" },
};

/** Units of each currency per 1 USD: fixed reference rates, so every run converts the same way. */
export const USD_RATES: Readonly<Record<string, number>> = {
  USD: 1,
  EUR: 0.92,
  GBP: 0.79,
  JPY: 151.2,
  AUD: 1.52,
  MXN: 17.1,
  EGP: 47.3,
  CHF: 0.9,
};

export const RATES_AS_OF = "2026-01-01";

/** Great-circle distance in kilometres. */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(a));
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
