import { ManifoldError } from "agent-manifold/runtime";
import type { GeocodingServiceHandlers } from "../../../generated/geocoding-service/index.js";
import { PLACES, distanceKm, round } from "./data.js";

export const geocodingHandlers: GeocodingServiceHandlers = {
  geocodeLocation: ({ location, country_hint }) => {
    // A country name where the code belongs ("Japan") is the usual mistake: refused (400), saying what fits.
    if (country_hint !== undefined && !/^[A-Za-z]{2}$/.test(country_hint))
      throw new ManifoldError("INVALID_INPUT", `country_hint must be an ISO 3166-1 alpha-2 code such as JP or FR, not ${JSON.stringify(country_hint)}`);
    const wanted = location.split(",")[0]!.trim().toLowerCase();
    const place = PLACES.find((p) => p.name.toLowerCase() === wanted && (country_hint === undefined || p.country === country_hint.toUpperCase()));
    if (place === undefined) throw new ManifoldError("NOT_FOUND", `no place named ${JSON.stringify(location)} in the gazetteer`);
    return {
      lat: place.lat,
      lon: place.lon,
      display_name: `${place.name}, ${place.country}`,
      country_code: place.country,
      bbox: { south: round(place.lat - 0.2, 4), west: round(place.lon - 0.3, 4), north: round(place.lat + 0.2, 4), east: round(place.lon + 0.3, 4) },
    };
  },
  reverseGeocode: ({ lat, lon }) => {
    const ranked = PLACES.map((p) => ({ p, d: distanceKm(lat, lon, p.lat, p.lon) })).sort((a, b) => a.d - b.d);
    const nearest = ranked[0]!;
    return { display_name: `${nearest.p.name}, ${nearest.p.country}`, country_code: nearest.p.country, distance_km: round(nearest.d, 1) };
  },
};
