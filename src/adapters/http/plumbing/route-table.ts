interface Route {
  method: string;
  path: string;
}

const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

function patternOf(path: string): RegExp {
  const parts = path.split("/").map((part) => (part.startsWith(":") ? "[^/]+" : part === "*" ? ".*" : escape(part)));
  return new RegExp(`^${parts.join("/")}/?$`);
}

/**
 * Which methods the app serves at a concrete path, from its route table (HEAD with GET): what a 405's Allow header
 * and an OPTIONS answer name. The table is read on first use, when every route is registered.
 */
export function methodsServing(routes: () => readonly Route[]): (path: string) => string[] {
  let table: Array<{ pattern: RegExp; method: string }> | undefined;
  return (path) => {
    table ??= routes()
      .filter((r) => r.method !== "OPTIONS" && r.method !== "ALL")
      .map((r) => ({ pattern: patternOf(r.path), method: r.method }));
    const methods = [...new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    // Elysia answers HEAD wherever it serves GET.
    return methods.flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method]));
  };
}
