import { Elysia } from "elysia";

/**
 * Routes that answer in the `{ success, data, error, meta? }` envelope (decisions §7) declare
 * `envelope: true`: their handlers build the success body, and this wraps their errors, whatever
 * raised them (validation, authentication, the use case), as `{ success: false, data: null, error, details? }`.
 */
export const envelopeMacro = new Elysia({ name: "plumbing.envelope" }).macro({
  envelope: {
    // A vendor extension Elysia's types do not list: tells the OpenAPI document which error shape to name.
    detail: { "x-envelope": true } as object,
    mapResponse({ responseValue, set }) {
      const status = typeof set.status === "number" ? set.status : 200;
      if (status < 400 || responseValue === null || typeof responseValue !== "object" || responseValue instanceof Response) return;
      return Response.json({ success: false, data: null, ...responseValue }, { status, headers: set.headers as Record<string, string> });
    },
  },
});
