/** Small hooks shared by the pages: loading data, polling, document titles. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api";

/** The state of a load: its data, its error, and a function that loads again. */
export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => Promise<void>;
  set: (data: T) => void;
}

/** Turns anything thrown into an {@link ApiError}. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError
    ? error
    : new ApiError(0, "client_error", (error as Error)?.message ?? String(error));
}

/** Runs `load` now and whenever `deps` change; keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const current = useRef(0);
  const reload = useCallback(async () => {
    const run = ++current.current;
    setLoading(true);
    try {
      const value = await load();
      if (run === current.current) {
        setData(value);
        setError(undefined);
      }
    } catch (e) {
      if (run === current.current) setError(asApiError(e));
    } finally {
      if (run === current.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void reload();
    return () => {
      current.current++;
    };
  }, [reload]);
  return { data, error, loading, reload, set: setData };
}

/** Calls `tick` every `ms` while the page is visible, one call at a time. */
export function usePoll(tick: () => Promise<unknown>, ms: number, enabled = true): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const loop = async () => {
      if (stopped) return;
      if (document.visibilityState === "visible") await saved.current().catch(() => undefined);
      if (!stopped) timer = setTimeout(loop, ms);
    };
    timer = setTimeout(loop, ms);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [ms, enabled]);
}

/** Sets the document title. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Hookline` : "Hookline";
  }, [title]);
}

/** A message for a polite live region that clears itself after a while. */
export function useNotice(): [string, (message: string) => void] {
  const [notice, setNotice] = useState("");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const show = useCallback((message: string) => {
    setNotice(message);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setNotice(""), 8000);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);
  return [notice, show];
}
