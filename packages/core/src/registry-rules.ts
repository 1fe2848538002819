/**
 * The rules for publishing a component to a registry. Both registries need a key (any valid key
 * for a workspace's private registry). The public registry, SPEC's "registry components", also
 * needs a semantic version and SPEC's key pattern, read as real Pipedream keys use it:
 * `<app_slug>-<slug>`, where the slug is usually, but not always, the slugified component name (a
 * different slug is a warning). A private component's version stays free form, as SPEC has it.
 */
import { isObject, type Obj } from "./component-props.js";
import type { Findings } from "./problems.js";
import { slugify } from "./slug.js";

/** Which registry a component is published to. */
export type RegistryVisibility = "private" | "public";

/** Semantic versioning 2.0.0, from semver.org. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/**
 * A valid registry key: letters, digits, `_`, `-` and `.`, starting with a letter or digit, at most
 * 200 characters. No `@` (it separates the version in `key@1.2.3`), no `/`, no spaces.
 */
export const REGISTRY_KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;

/** A slug of the public registry: lower-case words of letters, digits and `_`, joined by `-`. */
const SLUG = /^[a-z0-9_]+(?:-[a-z0-9_]+)*$/;

function appSlugs(def: Obj): string[] {
  const props = isObject(def.props) ? def.props : {};
  return Object.values(props).flatMap((prop) =>
    isObject(prop) && prop.type === "app" && typeof prop.app === "string" ? [prop.app] : [],
  );
}

/** Checks `def` against the rules of the `visibility` registry. @internal */
export function checkRegistry(def: Obj, visibility: RegistryVisibility, found: Findings): void {
  if (visibility === "public" && typeof def.version === "string" && !SEMVER.test(def.version)) {
    found.error(
      "invalid_version",
      "version",
      `the public registry needs a semantic version (1.2.3), got "${def.version}"`,
    );
  }
  if (def.key === undefined) {
    found.error(
      "required",
      "key",
      "registry components need a key such as <app_slug>-<slugified-component-name>",
    );
    return;
  }
  if (typeof def.key !== "string") return; // reported as invalid_type already
  if (!REGISTRY_KEY.test(def.key)) {
    found.error(
      "invalid_registry_key",
      "key",
      `a registry key is letters, digits, "_", "-" and "." (no "@", "/" or spaces), got "${def.key}"`,
    );
    return;
  }
  if (visibility === "public") checkPublicKey(def, def.key, found);
}

function checkPublicKey(def: Obj, key: string, found: Findings): void {
  const apps = appSlugs(def);
  const nameSlug = typeof def.name === "string" ? slugify(def.name) : "";
  const hint =
    apps.length > 0 ? apps.map((app) => `${app}-${nameSlug}`).join(" or ") : `<app_slug>-${nameSlug}`;
  const app =
    apps.length > 0 ? apps.find((slug) => key.startsWith(`${slug}-`)) : /^([a-z0-9_]+)-/.exec(key)?.[1];
  const rest = app === undefined ? "" : key.slice(app.length + 1);
  if (app === undefined || !SLUG.test(rest)) {
    const prefix = apps.length > 0 ? `one of its apps' slugs (${apps.join(", ")})` : "an app slug";
    found.error(
      "invalid_registry_key",
      "key",
      `a public registry key is ${prefix}, a dash and a lower-case slug, such as ${hint}; got "${key}"`,
    );
    return;
  }
  if (rest !== nameSlug) {
    found.warn(
      "invalid_registry_key",
      "key",
      `SPEC's key pattern is ${hint}: "${key}" does not end with the slugified name`,
    );
  }
}
