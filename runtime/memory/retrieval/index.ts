/** Retrieval: the lexical index (no service needed) and, later in this folder, the vector side and the retriever that fuses them. */
export type { Ranked, RetrievalDoc, Retriever, TextIndex, VectorIndex } from "./types.js";
export { createTextIndex, type TextIndexOptions } from "./lexical.js";
export { fold, stem, tokenize } from "./tokenize.js";
