/**
 * Keeps cookies as a browser does for one host (RFC 6265 §5.3-5.4): a cookie is known by its name
 * and path, Max-Age=0 or a past Expires deletes only the cookie with that name and path, and a
 * request carries the cookies whose path matches its own. Copying the Set-Cookie header by hand
 * hides a cookie cleared on another path than it was set on; this jar shows it.
 */
export class CookieJar {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  /** Takes every Set-Cookie of an answer to `requestPath`. */
  store(requestPath: string, headers: Headers) {
    for (const line of headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const attribute = (wanted: string) => attributes.find((a) => a.toLowerCase().startsWith(`${wanted}=`))?.slice(wanted.length + 1);
      const path = attribute("path")?.startsWith("/") ? (attribute("path") as string) : defaultPath(requestPath);
      const maxAge = attribute("max-age");
      const expires = attribute("expires");
      const expired = maxAge !== undefined ? Number(maxAge) <= 0 : expires !== undefined && Date.parse(expires) <= Date.now();
      const key = `${name};${path}`;
      if (expired) this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path });
    }
  }

  /** The Cookie header a browser sends with a request to `requestPath` (longer paths first). */
  header(requestPath: string): string {
    return [...this.cookies.values()]
      .filter((cookie) => pathMatches(requestPath, cookie.path))
      .sort((a, b) => b.path.length - a.path.length)
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join("; ");
  }

  /** The paths a cookie of this name is kept on. */
  pathsOf(name: string): string[] {
    return [...this.cookies.values()].filter((cookie) => cookie.name === name).map((cookie) => cookie.path);
  }
}

function defaultPath(requestPath: string): string {
  const last = requestPath.lastIndexOf("/");
  return last <= 0 ? "/" : requestPath.slice(0, last);
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  return requestPath.startsWith(cookiePath) && (cookiePath.endsWith("/") || requestPath[cookiePath.length] === "/");
}
