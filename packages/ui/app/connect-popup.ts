/**
 * Connecting an account through OAuth from the app: a popup opened at once (so that the browser
 * allows it), sent to the provider's authorization page once `POST /v1/accounts/connect` answers;
 * the callback page posts the outcome back here (`hookline:connect`), and the flow's status is
 * polled as well in case the message cannot arrive.
 */
import { ApiError, api, apiBase, seg } from "./api";
import type { Account } from "./types";

interface Status {
  status: "pending" | "connected" | "failed";
  account: Account | null;
  error: { code: string; message: string } | null;
}

/** Runs the connect flow of `app` in a popup; resolves with the connected account. */
export async function connectInPopup(app: string, options: { accountId?: string } = {}): Promise<Account> {
  const popup = window.open("about:blank", "hookline-connect", "popup,width=560,height=720");
  let started: { authorize_url: string; state: string };
  try {
    started = await api("POST", "/v1/accounts/connect", {
      app,
      opener_origin: window.location.origin,
      ...(options.accountId ? { account_id: options.accountId } : {}),
    });
  } catch (error) {
    popup?.close();
    throw error;
  }
  if (!popup) {
    throw new ApiError(
      0,
      "popup_blocked",
      "The browser blocked the sign-in window: allow pop-ups for this site",
    );
  }
  popup.location.href = started.authorize_url;
  const callbackOrigin = new URL(apiBase() || window.location.origin, window.location.href).origin;
  return new Promise<Account>((resolve, reject) => {
    let done = false;
    let closedPolls = 0;
    const finish = (status: Status) => {
      if (done || status.status === "pending") return;
      done = true;
      window.removeEventListener("message", onMessage);
      clearInterval(timer);
      if (status.status === "connected" && status.account) resolve(status.account);
      else
        reject(
          new ApiError(
            400,
            status.error?.code ?? "oauth_failed",
            status.error?.message ?? "Connecting failed",
          ),
        );
    };
    const onMessage = (event: MessageEvent) => {
      const data = event.data as Partial<Status> & { type?: string; state?: string };
      if (
        event.origin !== callbackOrigin ||
        data?.type !== "hookline:connect" ||
        data.state !== started.state
      )
        return;
      finish({ status: data.status ?? "failed", account: data.account ?? null, error: data.error ?? null });
    };
    window.addEventListener("message", onMessage);
    const timer = setInterval(async () => {
      try {
        finish(await api<Status>("GET", `/v1/accounts/connect/${seg(started.state)}`));
      } catch {
        // The flow expired or the server is away: keep waiting for the popup while it is open.
      }
      if (!done && popup.closed && ++closedPolls > 2) {
        finish({
          status: "failed",
          account: null,
          error: {
            code: "popup_closed",
            message: "The sign-in window was closed before the account was connected",
          },
        });
      }
    }, 1000);
  });
}
