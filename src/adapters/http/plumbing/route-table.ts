interface Route {
  method: string;
  path: string;
  hooks?: { body?: unknown; parse?: unknown; detail?: unknown };
}

/** The media types behind Elysia's parser names. */
const MEDIA_TYPES: Record<string, string> = {
  json: "application/json",
  urlencoded: "application/x-www-form-urlencoded",
  formdata: "multipart/form-data",
  text: "text/plain",
};

export interface RouteFacts {
  /** What the route reads: the media types it declares (JSON when it declares none), or nothing at all when it takes no body. */
  accepts: readonly string[];
  /** It takes its body as it came (a webhook's, for its signature): no parsing, no checks. */
  raw: boolean;
}

export interface RouteTable {
  /** The methods served at a concrete path (HEAD wherever GET: Elysia answers it). */
  methodsAt(path: string): string[];
  /** Whether the routes at a concrete path answer in the envelope. */
  envelopeAt(path: string): boolean;
  /** What a route (by method and pattern, as matched) reads. */
  facts(method: string, pattern: string): RouteFacts | undefined;
  /** The pattern of the route a request would reach (a static segment before a parameter, as the router picks); undefined for none. */
  patternAt(method: string, path: string): string | undefined;
  /** The patterns of the routes at a concrete path, whatever their method. */
  patternsAt(path: string): string[];
}

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

function patternOf(path: string): RegExp {
  const parts = path.split("/").map((part) => (part.startsWith(":") ? "[^/]+" : part === "*" ? ".*" : escapeRegExp(part)));
  return new RegExp(`^${parts.join("/")}/?$`);
}

function factsOf(route: Route): RouteFacts {
  const parsers = Array.isArray(route.hooks?.parse)
    ? (route.hooks.parse as Array<{ fn?: unknown }>).map((p) => p.fn).filter((fn): fn is string => typeof fn === "string")
    : [];
  if (parsers.includes("none")) return { accepts: [], raw: true };
  if (!route.hooks?.body) return { accepts: [], raw: false };
  const declared = parsers.map((name) => MEDIA_TYPES[name]).filter((type): type is string => type !== undefined);
  return { accepts: declared.length ? declared : [MEDIA_TYPES.json!], raw: false };
}

/**
 * What the plumbing needs to know of the app's routes: a 405's Allow header, an OPTIONS answer,
 * which media types a body may come in, whether errors are enveloped. Read on first use, when
 * every route is registered (routes never change after start).
 */
export function routeTable(routes: () => readonly Route[]): RouteTable {
  let table: { byPath: Array<{ pattern: RegExp; path: string; method: string; envelope: boolean }>; byRoute: Map<string, RouteFacts> } | undefined;
  const built = () =>
    (table ??= {
      byPath: routes()
        .filter((r) => r.method !== "OPTIONS" && r.method !== "ALL")
        .map((r) => ({
          pattern: patternOf(r.path),
          path: r.path,
          method: r.method,
          envelope: (r.hooks?.detail as Record<string, unknown> | undefined)?.["x-envelope"] === true,
        }))
        // Fewest parameters first: /cart/checkout before /cart/:id.
        .sort((a, b) => a.path.split(":").length - b.path.split(":").length),
      byRoute: new Map(routes().map((r) => [`${r.method} ${r.path}`, factsOf(r)])),
    });
  const at = (path: string) => built().byPath.filter((r) => r.pattern.test(path));
  return {
    methodsAt(path) {
      const methods = [...new Set(at(path).map((r) => r.method))];
      return methods.flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method]));
    },
    envelopeAt: (path) => at(path).some((r) => r.envelope),
    facts: (method, pattern) => built().byRoute.get(`${method} ${pattern}`),
    patternAt(method, path) {
      const wanted = method === "HEAD" ? "GET" : method;
      return at(path).find((r) => r.method === wanted)?.path;
    },
    patternsAt: (path) => [...new Set(at(path).map((r) => r.path))],
  };
}
