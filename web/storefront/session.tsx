import { type ComponentChildren, createContext } from "preact";
import { useCallback, useContext, useEffect, useMemo, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
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
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session>({
  user: undefined,
  cartCount: 0,
  refresh: async () => undefined,
  refreshCart: async () => undefined,
  signOut: async () => undefined,
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
    setUser(signedIn);
    if (signedIn) await refreshCart();
    else setCartCount(0);
  }, [refreshCart]);
  const signOut = useCallback(async () => {
    await api.POST("/api/auth/signout", { body: {} }).catch(() => undefined);
    setUser(null);
    setCartCount(0);
  }, []);
  useEffect(() => {
    void refresh();
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
