/**
 * What the console's pages load from the API, and the fault of the load, in one hook instead of a
 * value, a fault and a reload written out on every page.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from './api/client.js';

/** A value loaded from the API, with the fault of the last load. */
export interface Resource<T> {
  /**
   * The loaded value: undefined until the first load for the current dependencies answers; kept
   * while {@link Resource.reload} runs and when it fails.
   */
  value: T | undefined;
  /** The last load's fault (the server's message); undefined once a load succeeds. */
  fault: string | undefined;
  /** True while nothing is loaded and no fault says why: show "Loading…". */
  loading: boolean;
  /** Loads again, after a write: the value stays until the answer replaces it. Never rejects. */
  reload: () => Promise<void>;
}

/**
 * Loads `load()` on mount and whenever `dependencies` change (then the old value and fault go
 * first); an answer to an earlier load that arrives after a later one started is dropped, so a
 * slow answer never replaces a newer one.
 */
export function useResource<T>(load: () => Promise<T>, dependencies: readonly unknown[] = []): Resource<T> {
  const [value, setValue] = useState<T | undefined>();
  const [fault, setFault] = useState<string | undefined>();
  const latest = useRef(0);
  const loader = useRef(load);
  loader.current = load;

  const run = useCallback(async () => {
    const attempt = ++latest.current;
    try {
      const loaded = await loader.current();
      if (attempt !== latest.current) return;
      setValue(() => loaded);
      setFault(undefined);
    } catch (error) {
      if (attempt === latest.current) setFault(messageOf(error));
    }
  }, []);

  useEffect(() => {
    setValue(undefined);
    setFault(undefined);
    void run();
    return () => {
      latest.current++;
    };
  }, dependencies);

  return { value, fault, loading: value === undefined && fault === undefined, reload: run };
}
