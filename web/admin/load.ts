import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { Outcome, Problem } from "./api.ts";
import { useSession } from "./session.ts";

export type Loaded<T> = { state: "loading" } | { state: "ok"; data: T } | { state: "failed"; problem: Problem };

/**
 * What a page reads from the API, read again whenever `key` changes (the page's query) or on
 * reload(), whose promise settles once the page shows what was read. An answer that the session
 * has ended (401) sends the person back to sign in when the session reads so.
 */
export function useLoad<T>(read: () => Promise<Outcome<T>>, key: string): Loaded<T> & { reload(): Promise<void> } {
  const session = useSession();
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: "loading" });
  const [round, setRound] = useState(0);
  const waiting = useRef<Array<() => void>>([]);
  const reload = useCallback(
    () =>
      new Promise<void>((resolve) => {
        waiting.current.push(resolve);
        setRound((n) => n + 1);
      }),
    [],
  );
  // read is a new function every render: key says when it reads something else.
  useEffect(() => {
    let current = true;
    read().then((outcome) => {
      if (!current) return;
      // A 401: the session is read again, and the sign-in form replaces the page if it has ended.
      // Still signed in (another instance's cache of the session), the page says what was refused
      // instead of loading for ever.
      if (!outcome.ok && outcome.problem.status === 401) void session.refresh();
      setLoaded(outcome.ok ? { state: "ok", data: outcome.data } : { state: "failed", problem: outcome.problem });
    });
    return () => {
      current = false;
    };
  }, [key, round]);
  // Those waiting on a reload are told once what it read is drawn.
  useEffect(() => {
    const settled = waiting.current.splice(0);
    for (const resolve of settled) resolve();
  }, [loaded]);
  return { ...loaded, reload };
}
