import { componentCases } from "./component.cases.js";

componentCases("generated");
