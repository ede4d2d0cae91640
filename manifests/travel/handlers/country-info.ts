import { ManifoldError } from "agent-manifold/runtime";
import type { CountryInfoServiceHandlers } from "../../../generated/country-info-service/index.js";
import { COUNTRIES } from "./data.js";

export const countryInfoHandlers: CountryInfoServiceHandlers = {
  getCountryInfo: ({ country_code }) => {
    const country = COUNTRIES[country_code.toUpperCase()];
    if (country === undefined) throw new ManifoldError("NOT_FOUND", `no country with code ${JSON.stringify(country_code)}`);
    return { ...country, languages: [...country.languages] };
  },
  // The table is compiled in, so there is nothing to reload; the capability shows an internal one.
  warmCache: () => ({}),
};
