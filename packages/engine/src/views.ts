/**
 * What the engine returns for its records: saved components, deployed sources and connected
 * accounts as views, with code, bundles, credentials and secret prop values left out or masked.
 * Pure functions of the stored rows (a leaf module: the registry and every API module use it).
 */
import type { ComponentDescription, PropDescription } from "@hookline/core";
import type { Account, DeployedComponent, SavedComponent } from "@hookline/store";
import { dynamicPropsOf, finalProps } from "./dynamic-props.js";

/** A saved component as the engine returns it (the bundle left out). */
export interface ComponentView {
  id: string;
  workspaceId: string;
  codeHash: string;
  filename: string;
  /** The code as uploaded (one file; what the web UI's Configuration tab edits). */
  code: string;
  /** The registry key, for a published component (else see `description.key`). */
  key?: string;
  /** The published version, for a published component (else see `description.version`). */
  version?: string;
  /** For a published component: `private` (its workspace only) or `public` (every workspace). */
  visibility?: "private" | "public";
  description: ComponentDescription;
  createdAt: number;
}

/** A deployed source as the engine returns it. Secret prop values are masked. */
export interface SourceView {
  id: string;
  workspaceId: string;
  componentId: string;
  name: string;
  slug: string;
  active: boolean;
  /** The public URL of the HTTP interface, when the component has one. */
  endpoint?: string;
  endpointId?: string;
  props: Record<string, unknown>;
  description: ComponentDescription;
  createdAt: number;
  updatedAt: number;
  /** When its timer fires next (epoch ms): a timer source that is active; read from the store's schedule. */
  nextRunAt?: number;
}

/** A connected account as the engine returns it: never its credentials. */
export interface AccountView {
  id: string;
  workspaceId: string;
  app: string;
  name: string;
  /** Connected through OAuth (its tokens are refreshed by the engine). */
  oauth: boolean;
  /** `active`, or `needs_reconnect` once the provider refused a refresh. */
  status: "active" | "needs_reconnect";
  /** The embedding app's end user who owns it, if any. */
  externalUserId?: string;
  /** When its access token expires (epoch ms), for OAuth accounts whose provider says. */
  expiresAt?: number;
  createdAt: number;
  updatedAt: number;
}

/** What secret prop values read as. */
const MASK = "********";

/** The public URL of an HTTP endpoint: `<baseUrl>/http/<endpointId>`. @internal */
export function endpointUrl(baseUrl: string, endpointId: string): string {
  return `${baseUrl}/http/${endpointId}`;
}

/** The view of a saved component. @internal */
export function componentView(component: SavedComponent): ComponentView {
  const view: ComponentView = {
    id: component.id,
    workspaceId: component.workspaceId,
    codeHash: component.codeHash,
    filename: component.filename,
    code: component.code,
    description: component.description,
    createdAt: component.createdAt,
  };
  if (component.key !== undefined) {
    view.key = component.key;
    view.visibility = component.published;
  }
  if (component.version !== undefined) view.version = component.version;
  return view;
}

/** Prop values with those of secret props masked. */
function maskProps(
  declared: Record<string, PropDescription>,
  props: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(props)) {
    out[name] = declared[name]?.secret && value !== undefined ? MASK : value;
  }
  return out;
}

/**
 * The view of a deployed source running `component`: its final prop set (the component's props
 * and what `additionalProps()` added at configuration), secret values masked. @internal
 */
export function sourceView(
  source: DeployedComponent,
  component: SavedComponent,
  baseUrl: string,
): SourceView {
  const saved = component.description;
  const description = { ...saved, props: finalProps(saved, dynamicPropsOf(source.meta)) };
  const view: SourceView = {
    id: source.id,
    workspaceId: source.workspaceId,
    componentId: source.savedComponentId,
    name: source.name,
    slug: source.slug,
    active: source.active,
    props: maskProps(description.props, source.props),
    description,
    createdAt: source.createdAt,
    updatedAt: source.updatedAt,
  };
  if (source.endpointId) {
    view.endpointId = source.endpointId;
    view.endpoint = endpointUrl(baseUrl, source.endpointId);
  }
  return view;
}

/** The view of a connected account (id, app and name: never the credentials). @internal */
export function accountView(account: Account): AccountView {
  return {
    id: account.id,
    workspaceId: account.workspaceId,
    app: account.app,
    name: account.name,
    oauth: account.oauth,
    status: account.status,
    ...(account.externalUserId !== undefined ? { externalUserId: account.externalUserId } : {}),
    ...(account.expiresAt !== undefined ? { expiresAt: account.expiresAt } : {}),
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
  };
}
