import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Problem, Schemas } from "./api.ts";

export type Profile = Schemas["Profile"];
export type Permission = Profile["permissions"][number];

/** Who is signed in, and what their role may do (GET /api/users/me), for every page. */
export interface Session {
  me: Profile;
  can(permission: Permission): boolean;
  /** Reads the profile again (after a sign-in, or when the API says the session has ended). */
  refresh(): Promise<void>;
  /** Signs out; the problem when the shop could not be reached or refused (still signed in), else null. */
  signOut(): Promise<Problem | null>;
}

export const SessionContext = createContext<Session | null>(null);

/**
 * Shows a problem with a change (a move, a stock adjustment, a role): set as given, and an answer
 * that the session has ended (401) brings back the sign-in form instead.
 */
export function useProblemSetter(set: (problem: Problem | null) => void): (problem: Problem | null) => void {
  const session = useSession();
  return (problem) => {
    if (problem?.status === 401) void session.refresh();
    else set(problem);
  };
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside the signed-in app");
  return session;
}

/** The site's name in the window's title. */
export const SITE = "Storefront back office";

/** The back office's pages, each with the permission that lets a role read it, in the order the menu shows them. */
export const PAGES: ReadonlyArray<{ path: string; label: string; permission: Permission }> = [
  { path: "/admin/orders", label: "Orders", permission: "orders:read" },
  { path: "/admin/products", label: "Products", permission: "products:read" },
  { path: "/admin/users", label: "Users", permission: "users:read" },
  { path: "/admin/reports", label: "Sales report", permission: "analytics:read" },
  { path: "/admin/audit", label: "Audit log", permission: "settings:read" },
];

/** The roles only an ADMIN or a DEVELOPER may give or take away (decisions §12). */
export const GUARDED_ROLES: ReadonlySet<string> = new Set(["ADMIN", "DEVELOPER"]);
