/**
 * Retrieval: the lexical index (no service needed), the vector port's in-process adapter, and the
 * retriever that fuses both for memory's recall. See ../README.md (Retrieval).
 */
export type { EmbeddingCallRecord, EmbeddingRecorder, Ranked, RankOptions, RetrievalDoc, Retriever, TextIndex, VectorIndex } from "./types.js";
export { createTextIndex, type TextIndexOptions } from "./lexical.js";
export { fold, stem, tokenize } from "./tokenize.js";
export { createMemoryVectorIndex, type MemoryVectorIndexOptions } from "./vector-memory.js";
export { createRetriever, fuse, MEMORY_VECTORS_ENV, VECTOR_DB_URL_ENV, type RetrieverOptions } from "./retriever.js";
export { recordEmbedding, type EmbeddingCall } from "./record.js";
