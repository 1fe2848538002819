/**
 * The Store interface, area by area: every record Hookline persists, and the Queue.
 *
 * @packageDocumentation
 */
export * from "./components.js";
export * from "./data-stores.js";
export * from "./errors.js";
export * from "./events.js";
export * from "./idempotency.js";
export * from "./notifications.js";
export * from "./queue.js";
export * from "./replays.js";
export * from "./store.js";
export * from "./tenants.js";
export * from "./webhooks.js";
export * from "./workflows.js";
