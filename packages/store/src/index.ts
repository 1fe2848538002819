/**
 * `@hookline/store`: the Store and Queue interfaces and an in-memory store. The conformance suite
 * every adapter runs is the subpath `@hookline/store/testing`; what adapters share (cursors, channel
 * matching, row builders, lossless text) is `@hookline/store/adapter`.
 *
 * @packageDocumentation
 */
export { compareVersions } from "./adapter/versions.js";
export { createMemoryStore, type MemoryStoreOptions } from "./memory/index.js";
export * from "./types/index.js";
