import { Elysia } from "elysia";
import { z } from "zod";
import { version } from "../../../../package.json";
import { API_VERSION } from "../plumbing/request-context.ts";

const About = z
  .object({
    name: z.literal("Storefront"),
    version: z.string().describe("The shop's release"),
    apiVersion: z.string().describe("The API's version, as every answer's X-API-Version says"),
    docs: z.string().describe("The API's reference, to read in a browser"),
    openapi: z.string().describe("The OpenAPI 3.1 document, for tools and generated clients"),
    health: z.string(),
  })
  .meta({ id: "About" });

/** GET /api: what answers here, and where its documentation is. */
export function aboutRoutes(publicUrl: string) {
  const about = {
    name: "Storefront" as const,
    version,
    apiVersion: API_VERSION,
    docs: `${publicUrl}/api/docs`,
    openapi: `${publicUrl}/api/openapi.json`,
    health: `${publicUrl}/api/health`,
  };
  return new Elysia({ name: "routes.about" }).get("", () => about, {
    response: { 200: About.describe("What answers here, its version, and the addresses of its documentation") },
    detail: { tags: ["System"], summary: "The shop's name and version, and where its documentation is", security: [] },
  });
}
