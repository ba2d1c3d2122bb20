import { Elysia } from "elysia";
import type { Logger } from "../../../application/ports/system.ts";
import { requestInfo } from "./request-context.ts";
import { traceIdOf } from "./server-spans.ts";
import { bodyEndOf } from "./streamed-body.ts";

/** A path longer than this is logged cut, with its length: one client cannot write a log line as long as the request line it sent. */
export const LOGGED_PATH_CHARS = 1_000;

/**
 * One structured line per request: id, method, path, status, duration, client IP and, when signed
 * in, the user: as the auth plugin recognized them, or else (a public route, a request refused
 * before its session was looked at) as the session token says, read after the answer has gone. With
 * tracing on, the id of the request's trace too (its caller's, when it sent `traceparent`). A
 * streamed answer (an export) is logged once its body has ended, with how (`body`: sent, cut or
 * abandoned) and its `bytes`: its duration is the download's, not its first rows'. A path of over
 * LOGGED_PATH_CHARS is cut there, and `pathLength` says how long it was.
 */
export function requestLog(logger: Logger, tokenSubject: (request: Request) => Promise<string | undefined>) {
  return new Elysia({ name: "plumbing.request-log" }).onAfterResponse({ as: "global" }, async ({ request, set, path, responseValue }) => {
    const ended = await bodyEndOf(request);
    const info = requestInfo(request);
    const userId = info?.userId ?? (await tokenSubject(request));
    // A handler that returns a Response (a redirect, say) sets its status there, not in `set`.
    const status = responseValue instanceof Response ? responseValue.status : set.status;
    logger.info("request", {
      requestId: info?.id,
      method: request.method,
      ...(path.length > LOGGED_PATH_CHARS ? { path: path.slice(0, LOGGED_PATH_CHARS), pathLength: path.length } : { path }),
      status: typeof status === "number" ? status : 200,
      durationMs: info ? Math.round((performance.now() - info.startedAt) * 100) / 100 : undefined,
      ip: info?.ip ?? undefined,
      userId,
      traceId: traceIdOf(request),
      ...ended,
    });
  });
}
