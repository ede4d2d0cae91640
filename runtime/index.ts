export * from "./errors/index.js";
export * from "./spec/index.js";
export * from "./component/index.js";
