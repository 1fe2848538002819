/** Parameters shared by the routes that take a time window and an event filter. */
import { HooklineError } from "@hookline/core";
import Type from "typebox";

/** A time: epoch seconds or an ISO 8601 date. */
export const TimeParam = (description: string) =>
  Type.Optional(Type.Union([Type.Integer(), Type.String()], { description }));

/** An event filter: a JSON object (in a JSON body) or its JSON text (in the query string). */
export const FilterParam = Type.Optional(
  Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())], {
    description:
      'An event filter (docs/rest-api.md#filters): Mongo-style operators on dotted paths, such as {"event.total":{"$gte":100}}',
  }),
);

/** `since` and `until` (optional) as the window's parameters. */
export const WindowParams = {
  since: TimeParam("Only what happened at or after this time: epoch seconds or an ISO 8601 date"),
  until: TimeParam("Only what happened before this time: epoch seconds or an ISO 8601 date"),
};

/** A time parameter in epoch milliseconds; a bad one is `422 validation_failed` naming it. */
export function toMs(name: string, value: number | string): number {
  const ms = typeof value === "number" || /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value);
  if (Number.isSafeInteger(ms)) return ms;
  const message = `${name} must be epoch seconds or an ISO 8601 date such as 2026-01-31T12:00:00Z`;
  throw new HooklineError("validation_failed", `Invalid parameters: ${message}`, {
    problems: [{ code: "invalid_value", path: name, message }],
  });
}

/** The window of `since`/`until` in epoch milliseconds (absent bounds left out). */
export function windowOf(params: { since?: number | string; until?: number | string }): {
  since?: number;
  until?: number;
} {
  return {
    ...(params.since === undefined ? {} : { since: toMs("since", params.since) }),
    ...(params.until === undefined ? {} : { until: toMs("until", params.until) }),
  };
}
