export * from "./errors/index.js";
export * from "./spec/index.js";
export * from "./component/index.js";
export * from "./discovery/index.js";
export * from "./outbound/index.js";
export * from "./store/index.js";
export * from "./telemetry/index.js";
