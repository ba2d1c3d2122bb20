import { z } from "zod";
import { documentedAs } from "../schemas.ts";

/**
 * A route's zod schema as JSON Schema for the OpenAPI document: as clients send it (before
 * defaults and transforms), with query numbers shown as the numbers they are.
 */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override(ctx) {
      const number = documentedAs.get(ctx.zodSchema as unknown as z.ZodType);
      if (!number) return;
      const { description, default: fallback } = ctx.jsonSchema as { description?: string; default?: unknown };
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Record<string, unknown>)[key];
      const { $schema: _, ...numeric } = z.toJSONSchema(number, { io: "input", unrepresentable: "any" });
      Object.assign(ctx.jsonSchema, numeric, description ? { description } : {}, fallback === undefined ? {} : { default: fallback });
    },
  }) as Record<string, unknown>;
}
