/** "Did you mean": one implementation, in the runtime, because the workflow checker runs there too. */
export { closest } from "../../runtime/orchestration/check/suggest.js";
