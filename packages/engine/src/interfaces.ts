/**
 * A component's interfaces, read from its description: the HTTP interface (an endpoint, maybe a
 * custom response) and the timer. A leaf module, so that every engine module can ask.
 */
import type { ComponentDescription, PropDescription } from "@hookline/core";

/** The HTTP interface prop type. */
export const HTTP_INTERFACE = "$.interface.http";
/** The timer interface prop type. */
export const TIMER_INTERFACE = "$.interface.timer";

/** Props of a description, or a final prop set. */
type Props = Record<string, PropDescription>;

/** True when the component has an HTTP interface (so its source gets an endpoint). @internal */
export function hasHttpInterface(props: Props): boolean {
  return Object.values(props).some((p) => p.type === HTTP_INTERFACE);
}

/** True when the component's HTTP interface answers with `respond()` (`customResponse: true`). @internal */
export function hasCustomResponse(props: Props): boolean {
  return Object.values(props).some((p) => p.type === HTTP_INTERFACE && p.customResponse === true);
}

/** The name of the component's timer prop, if it has one. @internal */
export function timerPropOf(description: ComponentDescription): string | undefined {
  return Object.entries(description.props).find(([, p]) => p.type === TIMER_INTERFACE)?.[0];
}
