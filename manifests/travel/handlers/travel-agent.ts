import type { TravelAgentClients, TravelAgentHandlers } from "../../../generated/travel-agent/index.js";

/**
 * The agent's one capability, written against the typed clients of the tools it uses: geocode
 * first, then weather, country facts and money in parallel, since none of them needs the others.
 */
export function createTravelAgentHandlers(tools: TravelAgentClients): TravelAgentHandlers {
  return {
    tripBrief: async ({ destination, home_currency, budget }, ctx) => {
      const place = await tools.geocodingService.geocodeLocation({ location: destination }, { signal: ctx.signal });
      const [weather, country] = await Promise.all([
        tools.weatherService.getCurrentWeather({ lat: place.lat, lon: place.lon }, { signal: ctx.signal }),
        tools.countryInfoService.getCountryInfo({ country_code: place.country_code }, { signal: ctx.signal }),
      ]);
      const brief = {
        destination: place.display_name,
        country: { name: country.name, capital: country.capital, currency: country.currency, languages: country.languages },
        weather: { temperature: weather.temperature, condition: weather.condition },
      };
      if (home_currency === undefined) return brief;
      const money = await tools.currencyService.convertCurrency({ amount: budget ?? 1, from: home_currency, to: country.currency }, { signal: ctx.signal });
      return { ...brief, money: budget === undefined ? { rate: money.rate } : { rate: money.rate, converted: money.converted } };
    },
  };
}
