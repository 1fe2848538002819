/**
 * The pages of the connect flow, outside `/v1` and without an API key: `/oauth/callback` (where
 * providers send the user back: it finishes the flow, then posts the result to the window that
 * opened the popup and closes it, or redirects to the flow's return URL) and `/oauth/connect`, the
 * hosted connect page an embedding app opens with an end user's connect token in its #fragment.
 * A client that does not accept HTML gets the callback's result as JSON (`{data}` or `{error}`).
 */
import { randomBytes } from "node:crypto";
import type { ConnectFinished } from "@hookline/engine";
import { defineRoute } from "../_define.js";
import { jsonResponse } from "../_errors.js";
import { accountJson } from "../_json.js";

/** The `type` of the messages the pages post to the opener. */
export const CONNECT_MESSAGE = "hookline:connect";

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );

/** JSON for an inline script: `<` escaped so that no `</script>` can close it. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}" +
  "@media(prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}}code{font-size:.9em}";

function page(status: number, title: string, body: string, script: string): Response {
  const nonce = randomBytes(16).toString("base64");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main><script nonce="${nonce}">${script}</script></body></html>`;
  return new Response(html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      // The callback URL carries the code: never sent on as a referrer.
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    },
  });
}

/** The JSON answer of the callback to a client that is not a browser: never cached nor referred. */
function json(status: number, body: unknown): Response {
  return jsonResponse(status, body, { "cache-control": "no-store", "referrer-policy": "no-referrer" });
}

/** Where a finished flow goes: its return URL with the outcome in the query. */
function redirectTo(returnUrl: string, result: ConnectFinished): Response {
  const url = new URL(returnUrl);
  if (result.ok) {
    url.searchParams.set("hookline_status", "connected");
    url.searchParams.set("hookline_account_id", result.account.id);
  } else {
    url.searchParams.set("hookline_status", "failed");
    url.searchParams.set("hookline_error", result.error.code);
  }
  return new Response(null, {
    status: 303,
    headers: { location: url.href, "cache-control": "no-store", "referrer-policy": "no-referrer" },
  });
}

/** The callback's answer to a browser: a page that tells the opener and closes. */
function callbackPage(result: ConnectFinished, state: string | null): Response {
  const message = result.ok
    ? { type: CONNECT_MESSAGE, status: "connected", state, account: accountJson(result.account) }
    : {
        type: CONNECT_MESSAGE,
        status: "failed",
        state,
        error: { code: result.error.code, message: result.error.message },
      };
  const target = result.openerOrigin ?? null;
  const script = `var m=${scriptJson(message)},o=${scriptJson(target)};if(window.opener&&o){try{window.opener.postMessage(m,o)}catch(e){}${result.ok ? "window.close()" : ""}}`;
  return result.ok
    ? page(
        200,
        `Connected ${result.account.name}`,
        "<p>Your account is connected. You can close this window.</p>",
        script,
      )
    : page(
        result.error.status,
        "Could not connect the account",
        `<p>${escapeHtml(result.error.message)}</p><p>Error code: <code>${escapeHtml(result.error.code)}</code></p>`,
        script,
      );
}

/** The hosted connect page's script: start the flow with the token of the #fragment, then go to the provider. */
const CONNECT_SCRIPT = `(function(){
var p=new URLSearchParams(location.hash.slice(1));history.replaceState(null,"",location.pathname);
var token=p.get("token"),app=p.get("app"),origin=p.get("origin"),out=document.getElementById("status");
function fail(e){out.textContent="Could not connect: "+e.message+" ("+e.code+")";
if(window.opener&&origin){try{window.opener.postMessage({type:${scriptJson(CONNECT_MESSAGE)},status:"failed",error:e},origin)}catch(x){}}}
if(!token||!app){fail({code:"bad_request",message:"this page needs #token=ctok_...&app=<app slug>"});return}
var body={app:app};["name","account_id","return_url"].forEach(function(k){if(p.get(k))body[k]=p.get(k)});
if(origin)body.opener_origin=origin;
fetch("/v1/accounts/connect",{method:"POST",headers:{authorization:"Bearer "+token,"content-type":"application/json"},body:JSON.stringify(body)})
.then(function(r){return r.json().then(function(j){if(!r.ok)throw j.error||{code:"internal_error",message:"HTTP "+r.status};location.replace(j.data.authorize_url)})})
.catch(function(e){fail(e&&e.code?e:{code:"network_error",message:String(e&&e.message||e)})});
})();`;

/** The routes of the connect flow's pages. */
export const oauthPageRoutes = [
  defineRoute({
    method: "GET",
    path: "/oauth/callback",
    tag: "Connect",
    auth: false,
    produces: "text/html",
    summary:
      "The OAuth redirect URL to register with providers: finishes a connect flow (a page for browsers, JSON otherwise)",
    async handler({ hookline, url, request }) {
      const result = await hookline.connect.finish(url.searchParams);
      if (result.returnUrl) return redirectTo(result.returnUrl, result);
      if (!(request.headers.get("accept") ?? "").includes("text/html")) {
        return result.ok
          ? json(200, { data: { account: accountJson(result.account), reconnected: result.reconnected } })
          : json(result.error.status, { error: result.error.toJSON() });
      }
      return callbackPage(result, url.searchParams.get("state"));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/oauth/connect",
    tag: "Connect",
    auth: false,
    produces: "text/html",
    summary:
      "The hosted connect page: open it with #token=ctok_...&app=<slug>[&origin=<your origin>] (what @hookline/connect does)",
    async handler() {
      return page(
        200,
        "Connect an account",
        '<p id="status" role="status">Connecting your account…</p><noscript>This page needs JavaScript.</noscript>',
        CONNECT_SCRIPT,
      );
    },
  }),
];
