/**
 * `@hookline/connect`: connect an end user's account to Hookline from your own front end. Your
 * server mints a connect token for the end user (`POST /v1/connect/tokens {external_user_id}` with
 * your API key); your page calls {@link connectAccount} with it, which opens Hookline's hosted
 * connect page in a popup, where the user signs in at the provider; it resolves with the account.
 * The token reaches only that end user's connect flow and accounts.
 * @packageDocumentation
 */

import type { ConnectedAccount } from "./account.js";

export type { ConnectedAccount } from "./account.js";

/** Options of {@link connectAccount}. */
export interface ConnectAccountOptions {
  /** The end user's connect token (`ctok_...`), minted by your server. */
  token: string;
  /** The app's name slug, such as `github` (its OAuth client must be set up in Hookline). */
  app: string;
  /** Where Hookline is served, such as `https://hookline.example.com`. */
  baseUrl: string;
  /** The new account's name (default: from the provider's user info). */
  name?: string;
  /** Reconnect this account of the end user (keeps its `apn_` id). */
  accountId?: string;
  /** Popup size in pixels (default 560 by 720). */
  width?: number;
  height?: number;
  /** Gives up (rejecting with `aborted`) when this signal aborts. */
  signal?: AbortSignal;
}

/** Why {@link connectAccount} failed: a Hookline error code (`oauth_denied`...) or `popup_blocked`, `popup_closed`, `aborted`. */
export class ConnectError extends Error {
  /** The stable code. */
  readonly code: string;
  /**
   * @param code - The stable code.
   * @param message - For people.
   */
  constructor(code: string, message: string) {
    super(message);
    this.name = "ConnectError";
    this.code = code;
  }
}

/** The `type` of the messages Hookline's pages post to the opener. */
const MESSAGE = "hookline:connect";

/**
 * Opens Hookline's hosted connect page in a popup and resolves with the connected account. Call it
 * from a click handler (browsers block popups opened later).
 *
 * @example
 * ```ts
 * import { connectAccount } from "@hookline/connect";
 *
 * button.onclick = async () => {
 *   const { token } = await (await fetch("/my-server/hookline-token")).json();
 *   const account = await connectAccount({ token, app: "github", baseUrl: "https://hookline.example.com" });
 *   console.log(account.id); // apn_...
 * };
 * ```
 */
export function connectAccount(options: ConnectAccountOptions): Promise<ConnectedAccount> {
  const base = new URL(options.baseUrl);
  const fragment = new URLSearchParams({
    token: options.token,
    app: options.app,
    origin: window.location.origin,
  });
  if (options.name) fragment.set("name", options.name);
  if (options.accountId) fragment.set("account_id", options.accountId);
  const url = `${base.origin}${base.pathname.replace(/\/+$/, "")}/oauth/connect#${fragment}`;
  const features = `popup,width=${options.width ?? 560},height=${options.height ?? 720}`;
  const popup = window.open(url, "hookline-connect", features);
  if (!popup) {
    return Promise.reject(
      new ConnectError("popup_blocked", "The browser blocked the popup: call connectAccount from a click"),
    );
  }
  return new Promise<ConnectedAccount>((resolve, reject) => {
    const end = (error?: ConnectError, account?: ConnectedAccount) => {
      window.removeEventListener("message", onMessage);
      clearInterval(watch);
      options.signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(account as ConnectedAccount);
    };
    const onMessage = (event: MessageEvent) => {
      const data = event.data as {
        type?: string;
        status?: string;
        account?: ConnectedAccount;
        error?: { code: string; message: string };
      } | null;
      if (event.origin !== base.origin || event.source !== popup || data?.type !== MESSAGE) return;
      if (data.status === "connected" && data.account) end(undefined, data.account);
      else
        end(
          new ConnectError(data.error?.code ?? "connect_failed", data.error?.message ?? "Connecting failed"),
        );
    };
    const onAbort = () => {
      popup.close();
      end(new ConnectError("aborted", "Connecting was aborted"));
    };
    // A popup closed without a message: the user gave up. (A message posted just before closing is
    // delivered first, as it was queued before.)
    const watch = setInterval(() => {
      if (popup.closed)
        end(new ConnectError("popup_closed", "The popup was closed before the account was connected"));
    }, 500);
    window.addEventListener("message", onMessage);
    options.signal?.addEventListener("abort", onAbort);
  });
}
