// openapi-typescript resolves `typescript` from its own folder, which npm fills from this package's
// dependencies (TypeScript 5), not from the project's TypeScript 7.
export { default as openapiTS, astToString } from "openapi-typescript";
