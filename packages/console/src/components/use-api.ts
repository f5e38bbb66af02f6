import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
}

/**
 * Loads data from the API when `key` changes, and again every `refreshMs` when given (the inbox
 * refreshes every 5 s). Keeps the last data while reloading, so a refresh never blanks the page.
 */
export function useApi<T>(load: () => Promise<T>, key: string, refreshMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const loader = useRef(load);
  loader.current = load;
  const current = useRef(key);

  const reload = useCallback(async () => {
    const forKey = current.current;
    setLoading(true);
    try {
      const value = await loader.current();
      if (current.current !== forKey) return;
      setData(value);
      setError(null);
    } catch (caught) {
      if (current.current === forKey) setError(caught);
    } finally {
      if (current.current === forKey) setLoading(false);
    }
  }, []);

  useEffect(() => {
    current.current = key;
    setData(undefined);
    void reload();
    if (refreshMs === undefined) return undefined;
    const timer = setInterval(() => void reload(), refreshMs);
    return () => clearInterval(timer);
  }, [key, refreshMs, reload]);

  return { data, error, loading, reload };
}

/** Runs an action (a button's POST) and remembers its error and whether it is running. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async (...args: A): Promise<R | undefined> => {
      setBusy(true);
      setError(null);
      try {
        return await action(...args);
      } catch (caught) {
        setError(caught);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [action],
  );
  return { run, error, busy, clearError: () => setError(null) };
}
