import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { z } from "zod";
import type { Clock } from "../../application/ports/system.ts";
import type { UseCases } from "../../application/use-cases.ts";
import type { Logger } from "../log.ts";
import { API_VERSION, plumbing } from "./plumbing.ts";
import { type AuthSettings } from "./auth.ts";
import { authRoutes } from "./routes/auth.ts";
import { cartRoutes } from "./routes/cart.ts";
import { healthRoutes } from "./routes/health.ts";
import { userRoutes } from "./routes/users.ts";
import { createSessionTokens } from "./session.ts";
import { locationRoutes } from "./routes/locations.ts";
import { productRoutes } from "./routes/products.ts";

export interface AppOptions {
  logger: Logger;
  /** The clock the use cases run on: session tokens are stamped and judged by it. */
  clock: Clock;
  publicUrl: string;
  session: Omit<AuthSettings, "tokens"> & { secret: string };
}

export function createApp(useCases: UseCases, { logger, clock, publicUrl, session }: AppOptions) {
  const auth: AuthSettings = { ...session, tokens: createSessionTokens(session.secret, clock) };
  return new Elysia({ prefix: "/api" })
    .use(plumbing(logger))
    .use(
      openapi({
        path: "/docs",
        specPath: "/openapi.json",
        // Parameters are documented as clients send them: before defaults and transforms apply.
        mapJsonSchema: { zod: (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) },
        documentation: {
          openapi: "3.1.0",
          components: {
            securitySchemes: {
              session: { type: "apiKey", in: "cookie", name: session.cookieName },
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
    )
    .use(healthRoutes(useCases, logger))
    .use(authRoutes(useCases, { ...auth, publicUrl }))
    .use(userRoutes(useCases, auth))
    .use(productRoutes(useCases, auth))
    .use(cartRoutes(useCases, auth))
    .use(locationRoutes(useCases));
}

export type App = ReturnType<typeof createApp>;
