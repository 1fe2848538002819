/**
 * Dynamic props (SPEC's `reloadProps` / `additionalProps`): the props `additionalProps()` returns
 * are merged with the component's `props` to give the final prop set. A deployed source keeps the
 * additional props it was configured with in its `meta`, so that its values are validated, masked,
 * decrypted and passed to the sandbox like those of declared props.
 */
import type { ComponentDescription, PropDescription } from "@hookline/core";

const META_KEY = "dynamicProps";

/** The additional props stored in a deployed source's `meta` (empty when none). @internal */
export function dynamicPropsOf(meta: Record<string, unknown> | undefined): Record<string, PropDescription> {
  const value = meta?.[META_KEY];
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, PropDescription>)
    : {};
}

/** `meta` with the additional props replaced (removed when there are none). @internal */
export function withDynamicProps(
  meta: Record<string, unknown> | undefined,
  dynamic: Record<string, PropDescription>,
): Record<string, unknown> | undefined {
  const { [META_KEY]: _previous, ...rest } = meta ?? {};
  const next = Object.keys(dynamic).length > 0 ? { ...rest, [META_KEY]: dynamic } : rest;
  return Object.keys(next).length > 0 ? next : undefined;
}

/** The final prop set: the component's props merged with the additional ones. @internal */
export function finalProps(
  description: ComponentDescription,
  dynamic: Record<string, PropDescription>,
): Record<string, PropDescription> {
  return { ...description.props, ...dynamic };
}
