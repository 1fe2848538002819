/**
 * The Hookline component model: schemas, validation, dedupe, ids and errors. No I/O.
 * @packageDocumentation
 */

export * from "./description.js";
export * from "./errors.js";
