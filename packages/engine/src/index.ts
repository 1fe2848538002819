/**
 * The Hookline engine: the composition root that turns saved code into running sources.
 * @packageDocumentation
 */
export * from "./api-keys.js";
export type { HooklineEvents } from "./events.js";
export * from "./http-event.js";
export * from "./secrets.js";
