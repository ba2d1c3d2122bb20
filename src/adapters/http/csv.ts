import { csvFileName } from "../presenters/csv.ts";

/**
 * A streamed CSV answer (decisions §12): text/csv in UTF-8, offered as a download named
 * `<what>-<YYYYMMDD>.csv`, its chunks pulled one at a time as the client reads, so a slow reader
 * holds back the export instead of piling it up in memory. A failure mid-stream cuts the download
 * (the client sees it incomplete) rather than sending a half file as if whole.
 */
export function csvResponse(what: string, at: Date, chunks: AsyncGenerator<string>): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${csvFileName(what, at)}"`,
    },
  });
}
