/** The sign-in page: asks for the API key once and keeps it for the browser session. */
import { useEffect, useRef, useState } from "preact/hooks";
import { type ApiError, checkKey, setSessionKey } from "../api";
import { asApiError, useTitle } from "../hooks";
import { ErrorNote } from "../widgets";

/** Asks for the API key; calls `onSignedIn(next)` once the API accepts it. */
export function Login({ next, onSignedIn }: { next: string; onSignedIn: (next: string) => void }) {
  useTitle("Sign in");
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [rejected, setRejected] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  return (
    <main id="main" class="login">
      <h1>Sign in to Hookline</h1>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          setRejected(false);
          try {
            if (await checkKey(key.trim())) {
              setSessionKey(key.trim());
              onSignedIn(next);
            } else setRejected(true);
          } catch (err) {
            setError(asApiError(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="api-key">API key</label>
        <input
          ref={input}
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          required
          aria-describedby="api-key-hint"
          aria-invalid={rejected}
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <p id="api-key-hint" class="hint">
          The key <code>pd serve</code> printed on its first start (also in <code>.hookline/api-key</code>).
          It is kept in this tab until you close it or sign out.
        </p>
        {rejected ? (
          <p class="error" role="alert">
            The API key is unknown or revoked.
          </p>
        ) : null}
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={busy || key.trim() === ""}>
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
