import { type ComponentChildren, createContext } from "preact";
import { useCallback, useContext, useEffect, useMemo, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import type { Middleware } from "openapi-fetch";
import { api } from "../api/client.ts";
import type { components } from "../api/schema.d.ts";

export type SessionUser = components["schemas"]["SessionUser"];

interface Session {
  /** undefined while the session is being read; null when signed out. */
  user: SessionUser | null | undefined;
  /** Units in the cart (0 when signed out). */
  cartCount: number;
  refresh(): Promise<void>;
  refreshCart(): Promise<void>;
  /** Signs out; false (still signed in) when the shop could not be reached or refused. */
  signOut(): Promise<boolean>;
}

const SessionContext = createContext<Session>({
  user: undefined,
  cartCount: 0,
  refresh: async () => undefined,
  refreshCart: async () => undefined,
  signOut: async () => false,
});

/** Who is signed in (GET /api/auth/session) and how much is in their cart, for every page. */
export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [user, setUser] = useState<SessionUser | null | undefined>(undefined);
  const [cartCount, setCartCount] = useState(0);
  const refreshCart = useCallback(async () => {
    const { data } = await api.GET("/api/cart").catch(() => ({ data: undefined }));
    setCartCount(data?.totalQuantity ?? 0);
  }, []);
  const refresh = useCallback(async () => {
    const { data } = await api.GET("/api/auth/session").catch(() => ({ data: undefined }));
    const signedIn = data?.user ?? null;
    // The same user read again keeps the same object: pages load their data when the user changes,
    // and a call refused with 401 while the session still reads signed in (another instance's
    // cache of it, for up to 30 s) would otherwise load, be refused and read again without end.
    setUser((current) => (current && signedIn && JSON.stringify(current) === JSON.stringify(signedIn) ? current : signedIn));
    if (signedIn) await refreshCart();
    else setCartCount(0);
  }, [refreshCart]);
  const signOut = useCallback(async () => {
    const answer = await api.POST("/api/auth/signout", { body: {} }).catch(() => null);
    // A 401: the session had ended already, which is what was asked.
    if (!answer || (!answer.response.ok && answer.response.status !== 401)) return false;
    setUser(null);
    setCartCount(0);
    return true;
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  // A session that ended meanwhile (signed out elsewhere, expired): the first call it fails (401)
  // reads the session again, so the header says so and a page that needs one sends to sign in.
  useEffect(() => {
    const ended: Middleware = {
      onResponse({ request, response }) {
        if (response.status === 401 && !new URL(request.url).pathname.startsWith("/api/auth/")) void refresh();
      },
    };
    api.use(ended);
    return () => api.eject(ended);
  }, [refresh]);
  const value = useMemo(() => ({ user, cartCount, refresh, refreshCart, signOut }), [user, cartCount, refresh, refreshCart, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export const useSession = () => useContext(SessionContext);

/** The sign-in page's address that comes back here afterwards. */
export function signInPath(returnTo: string): string {
  return `/signin?return=${encodeURIComponent(returnTo)}`;
}

/**
 * Goes to a path of this site: a storefront page by its router; the back office, another app,
 * by loading it (the storefront's router has no page there).
 */
export function goTo(path: string, route: (url: string) => void): void {
  if (/^\/admin(?:[/?#]|$)/.test(path)) location.assign(path);
  else route(path);
}

/**
 * A path on this site to go back to, never another origin. Read as the browser reads a URL, which
 * takes a backslash for a slash and drops tabs and line breaks: `/\evil.example` and `/<tab>/evil.example`
 * are both `//evil.example`, another site.
 */
export function safeReturn(path: string | undefined, fallback = "/"): string {
  if (!path?.startsWith("/")) return fallback;
  const here = "https://shop.invalid";
  try {
    const url = new URL(path, here);
    // Resolved (`/.//x` is `//x`), a path that begins with two slashes is another site's address.
    return url.origin === here && !url.pathname.startsWith("//") ? `${url.pathname}${url.search}${url.hash}` : fallback;
  } catch {
    return fallback; // `//[`: a host that is not one
  }
}

/**
 * The signed-in user, for a page that needs one: while the session is read, undefined; signed out,
 * the shopper is sent to sign in, and back here afterwards.
 */
export function useSignedIn(): SessionUser | undefined {
  const { user } = useSession();
  const { url, route } = useLocation();
  useEffect(() => {
    if (user === null) route(signInPath(url), true);
  }, [user, url, route]);
  return user ?? undefined;
}
