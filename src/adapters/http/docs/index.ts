import { Elysia } from "elysia";
import { version as swaggerUiVersion } from "swagger-ui-dist/package.json";
import { API_VERSION, carriesCredentials } from "../plumbing/request-context.ts";
import { type OpenApiDocument, finishDocument } from "./finish-document.ts";
import { toJsonSchema } from "./json-schema.ts";

/** Swagger UI's files, served by the shop itself from the pinned swagger-ui-dist package: the docs page works offline (decisions §10). */
const ASSETS = new Map(
  Object.entries({ "swagger-ui-bundle.js": "text/javascript; charset=utf-8", "swagger-ui.css": "text/css; charset=utf-8" }).map(([name, type]) => [
    name,
    { type, path: Bun.resolveSync(`swagger-ui-dist/${name}`, import.meta.dir) },
  ]),
);
// The path names the package version, so a browser may keep the files as long as it likes.
const ASSETS_PATH = `/docs/assets/${swaggerUiVersion}`;

const boot = `window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#swagger-ui", deepLinking: true });`;
/**
 * The page's policy: the shop's own files, and of inline script only the one line that starts
 * Swagger UI (by its hash). So a script that found its way into the page (through the document,
 * say) does not run, and no other site frames the page.
 */
const policy = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${new Bun.CryptoHasher("sha256").update(boot).digest("base64")}'`,
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Storefront API</title>
  <link rel="stylesheet" href="/api${ASSETS_PATH}/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api${ASSETS_PATH}/swagger-ui-bundle.js"></script>
  <script>${boot}</script>
</body>
</html>`;

/** The OpenAPI 3.1 document at /api/openapi.json, and a page to read it at /api/docs. */
export function apiDocs({ publicUrl, cookieName }: { publicUrl: string; cookieName: string }) {
  let document: Promise<ReturnType<typeof finishDocument>> | undefined;
  const docs = new Elysia({ name: "docs" })
    .get(
      "/openapi.json",
      (): Promise<ReturnType<typeof finishDocument>> => {
        // Built on first request, when every route is registered (routes never change after start);
        // the generator is loaded then too, not by every process at start.
        document ??= import("@elysiajs/openapi").then(({ toOpenAPISchema }) =>
          finishDocument(toOpenAPISchema(docs, undefined, undefined, { zod: toJsonSchema }) as unknown as OpenApiDocument, {
            publicUrl,
            cookieName,
            version: API_VERSION,
          }),
        );
        return document;
      },
      { detail: { hide: true } },
    )
    .get(
      "/docs",
      () =>
        new Response(page, {
          headers: {
            "content-type": "text/html; charset=utf-8",
            "content-security-policy": policy,
            "x-frame-options": "DENY",
            "referrer-policy": "same-origin",
          },
        }),
      { detail: { hide: true } },
    )
    .get(
      `${ASSETS_PATH}/:file`,
      ({ params, request, status }) => {
        const asset = ASSETS.get(params.file);
        if (!asset) return status(404, { error: "Not found" });
        // No answer to a request with a session is stored (decisions §10), not even a public file.
        const caching = carriesCredentials(request, cookieName) ? "no-store" : "public, max-age=31536000, immutable";
        return new Response(Bun.file(asset.path), { headers: { "content-type": asset.type, "cache-control": caching } });
      },
      { detail: { hide: true } },
    );
  return docs;
}
