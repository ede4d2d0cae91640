/** A path into a document: mapping keys and list indexes. */
export type DocumentPath = readonly (string | number)[];

/** `steps[1].inputs.lat`, for messages. */
export function displayPath(path: DocumentPath): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? segment : `.${segment}`;
  }
  return out === "" ? "the manifest" : out;
}
