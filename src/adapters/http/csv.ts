import type { Logger } from "../../application/ports/system.ts";
import { failureOf } from "../../domain/errors.ts";
import { type Traffic, givingWay, processTraffic } from "../traffic.ts";
import { requestInfo } from "./plumbing/request-context.ts";
import { streamingBody } from "./plumbing/streamed-body.ts";

const csvHeaders = (fileName: string) => ({
  "content-type": "text/csv; charset=utf-8",
  "content-disposition": `attachment; filename="${fileName}"`,
});

/**
 * A streamed CSV answer (decisions §12) to `request`: text/csv in UTF-8, offered as a download named
 * `fileName` (csvFileName), its chunks pulled one at a time as the client reads, so a slow reader
 * holds back the export instead of piling it up in memory. Before each chunk is written the other
 * requests waiting on this thread get their turn, and while others keep arriving the export runs at
 * background priority (givingWay): an export never holds them up for longer than one chunk's work,
 * nor takes more than a third of the time from them. A failure mid-stream cuts the download (the client
 * sees it incomplete) rather than sending a half file as if whole, and is told to `onCut`. The request
 * is over when its body is (streamingBody): its log line, metrics and span then say how long it took,
 * how many bytes went, and whether the body was sent whole, cut, or abandoned by the client.
 */
export function csvResponse(
  request: Request,
  fileName: string,
  chunks: AsyncGenerator<string>,
  { traffic = processTraffic, onCut }: { traffic?: Traffic; onCut?: (error: unknown) => void } = {},
): Response {
  const encoder = new TextEncoder();
  const pieces = givingWay(chunks, traffic);
  let bytes = 0;
  const ended = streamingBody(request, () => bytes);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setImmediate(resolve));
      const next = await pieces.next().catch((error: unknown) => {
        onCut?.(error);
        ended("cut");
        throw error;
      });
      if (next.done) {
        controller.close();
        ended("sent");
        return;
      }
      const chunk = encoder.encode(next.value);
      bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
    async cancel() {
      ended("abandoned");
      await pieces.return(undefined);
    },
  });
  return new Response(body, { headers: csvHeaders(fileName) });
}

/** An export's onCut: the cut logged (`export.cut`, an error) with the request's id, what was exported and why (the database's words). */
export const logCut = (logger: Logger, request: Request, what: string) => (error: unknown) =>
  logger.error("export.cut", { requestId: requestInfo(request)?.id, export: what, ...failureOf(error) });

/**
 * A HEAD of an export: the headers its GET would carry, and nothing run. A HEAD is asked for what
 * a download would be, so no export is made (the database read, the CSV written and thrown away)
 * and none is audited: nothing was exported.
 */
export function csvHead(fileName: string): Response {
  return new Response(null, { headers: csvHeaders(fileName) });
}
