import { ManifoldError } from "agent-manifold/runtime";
import type { CurrencyServiceHandlers } from "../../../generated/currency-service/index.js";
import { RATES_AS_OF, USD_RATES, round } from "./data.js";

function perUsd(code: string): number {
  const rate = USD_RATES[code.toUpperCase()];
  if (rate === undefined) throw new ManifoldError("NOT_FOUND", `unknown currency ${JSON.stringify(code)}; see list_currencies`);
  return rate;
}

export const currencyHandlers: CurrencyServiceHandlers = {
  convertCurrency: ({ amount, from, to }) => {
    const rate = round(perUsd(to) / perUsd(from), 6);
    return { amount, from: from.toUpperCase(), to: to.toUpperCase(), rate, converted: round(amount * rate, 2) };
  },
  getExchangeRates: ({ base = "USD" }) => {
    const b = perUsd(base);
    const rates = Object.fromEntries(Object.entries(USD_RATES).map(([code, r]) => [code, round(r / b, 6)]));
    return { base: base.toUpperCase(), rates, as_of: RATES_AS_OF };
  },
  listCurrencies: () => ({ currencies: Object.keys(USD_RATES).sort() }),
};
