/**
 * Matching a request to a route of the REST API: each route's path template (`/v1/sources/{id}`)
 * compiled once to a regular expression; 404 `route_not_found` when no template matches, 405
 * `method_not_allowed` (with `Allow`) when one does for another method.
 */
import { HooklineError } from "@hookline/core";
import type { Route } from "./_define.js";
import { apiErrorResponse } from "./_errors.js";
import { decodePath } from "./_params.js";

interface Compiled {
  route: Route;
  regex: RegExp;
  names: string[];
}

function compile(route: Route): Compiled {
  const names: string[] = [];
  const pattern = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { route, regex: new RegExp(`^${pattern}/?$`), names };
}

/** A request's route and its decoded path parameters. @internal */
export interface RouteMatch {
  route: Route;
  /** The path parameters, decoded (throws on a malformed one, once the route is known). */
  pathParams(): Record<string, string>;
}

/** The routes of one handler, compiled. @internal */
export interface Router {
  /** The route of `method` on `path`; a 405 response when only other methods have one; throws 404. */
  match(method: string, path: string): RouteMatch | Response;
  /** Whether a path is one of a connect route's (which a connect token reaches, with CORS). */
  isConnectPath(path: string): boolean;
}

/** Compiles `routes` (in matching order). @internal */
export function createRouter(routes: Route[]): Router {
  const compiled = routes.map(compile);
  const connectPaths = compiled.filter((c) => c.route.auth === "connect").map((c) => c.regex);
  return {
    match(method, path) {
      const matches = compiled
        .map((c) => ({ c, m: c.regex.exec(path) }))
        .filter((x): x is { c: Compiled; m: RegExpExecArray } => x.m !== null);
      if (matches.length === 0)
        throw new HooklineError("route_not_found", `No route ${method} ${path.slice(0, 200)}`);
      const hit = matches.find((x) => x.c.route.method === method);
      if (!hit) {
        const allow = [...new Set(matches.map((x) => x.c.route.method))].join(", ");
        return apiErrorResponse(
          new HooklineError(
            "method_not_allowed",
            `${method} is not allowed on ${path.slice(0, 200)}; use ${allow}`,
          ),
          { allow },
        );
      }
      return { route: hit.c.route, pathParams: () => decodePath(hit.c.names, hit.m.slice(1)) };
    },
    isConnectPath: (path) => connectPaths.some((regex) => regex.test(path)),
  };
}
