/** Manifold's version, stamped into every generated file's header; a test keeps it equal to package.json. */
export const MANIFOLD_VERSION = "0.1.0";
