/**
 * `@hookline/store`: the Store and Queue interfaces and an in-memory store. The conformance suite
 * every adapter runs is the subpath `@hookline/store/testing`.
 *
 * @packageDocumentation
 */
export { compareVersions, createMemoryStore, type MemoryStoreOptions } from "./memory.js";
export * from "./types.js";
