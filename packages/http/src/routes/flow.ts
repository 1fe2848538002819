/**
 * `/v1/flow/{exe_id}/resume` and `/cancel`: the URLs `$.flow.delay`, `$.flow.suspend` and
 * `$.flow.rerun` return. No API key: the single-use `token` is the credential (a wrong or used one
 * is 404 `not_found`). A resume's JSON body (or, for GET, its other query parameters) becomes the
 * paused step's `$resume_data`.
 */
import Type from "typebox";
import { defineRoute, type Route } from "../_define.js";

const Params = Type.Object({
  token: Type.String({ description: "The token of the URL (single use)" }),
});

const FlowData = Type.Object({
  execution_id: Type.String({ pattern: "^exe_" }),
  status: Type.String({ description: "queued (resumed) or exited (cancelled)" }),
});

/** The params without `token`, or null when nothing else came. */
function dataOf(params: Record<string, unknown>): unknown {
  const { token: _t, ...rest } = params;
  return Object.keys(rest).length > 0 ? rest : null;
}

function flowRoute(method: "GET" | "POST", kind: "resume" | "cancel"): Route {
  return defineRoute({
    method,
    path: `/v1/flow/{exe_id}/${kind}`,
    tag: "Workflows",
    summary:
      kind === "resume"
        ? "Resume a paused run now (a $.flow.delay, suspend or rerun URL; the body becomes $resume_data)"
        : "Cancel a paused run (a $.flow.delay, suspend or rerun URL): it ends exited, cancelled",
    auth: false,
    params: Params,
    data: FlowData,
    async handler({ hookline, path, params }) {
      const exe = await hookline.workflows.flow(
        kind,
        path.exe_id as string,
        params.token as string,
        kind === "resume" ? dataOf(params) : undefined,
      );
      return { data: { execution_id: exe.id, status: exe.status } };
    },
  });
}

/** The resume and cancel routes. */
export const flowRoutes = [
  flowRoute("POST", "resume"),
  flowRoute("GET", "resume"),
  flowRoute("POST", "cancel"),
  flowRoute("GET", "cancel"),
];
