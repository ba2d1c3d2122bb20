import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { z } from "zod";
import { version as swaggerUiVersion } from "swagger-ui-dist/package.json";
import { API_VERSION } from "./plumbing/request-context.ts";

/** Swagger UI's files, served by the shop itself from the pinned swagger-ui-dist package: the docs page works offline. */
const ASSETS = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
} as const;
const assetsPath = `/docs/assets/${swaggerUiVersion}`;

function docsAssets() {
  const files = Object.fromEntries(
    Object.entries(ASSETS).map(([name, type]) => [name, { path: Bun.resolveSync(`swagger-ui-dist/${name}`, import.meta.dir), type }]),
  );
  return new Elysia({ name: "docs.assets" }).get(
    `${assetsPath}/:file`,
    ({ params, status }) => {
      const file = files[params.file];
      if (!file) return status(404, { error: "Not found" });
      // The path names the package version, so a browser may keep the file as long as it likes.
      return new Response(Bun.file(file.path), { headers: { "content-type": file.type, "cache-control": "public, max-age=31536000, immutable" } });
    },
    { detail: { hide: true } },
  );
}

export function apiDocs({ publicUrl, cookieName }: { publicUrl: string; cookieName: string }) {
  return new Elysia({ name: "docs" })
    .use(docsAssets())
    .use(
      openapi({
        path: "/docs",
        specPath: "/openapi.json",
        provider: "swagger-ui",
        swagger: { cdn: `/api${assetsPath}/swagger-ui-bundle.js`, theme: `/api${assetsPath}/swagger-ui.css` },
        // Parameters are documented as clients send them: before defaults and transforms apply.
        mapJsonSchema: { zod: (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) },
        documentation: {
          openapi: "3.1.0",
          servers: [{ url: publicUrl }],
          components: {
            securitySchemes: {
              session: { type: "apiKey", in: "cookie", name: cookieName },
              bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
            },
          },
          info: {
            title: "Storefront API",
            version: API_VERSION,
            description: "Catalog, cart, orders and payments for the Storefront shop.",
          },
        },
      }),
    );
}
