import { Elysia } from "elysia";
import { HttpError } from "../errors.ts";
import { pathOf } from "./request-context.ts";

/** What a browser may ask the API for (Sec-Fetch-Dest): data for a script (fetch), or a page it goes to (an export's link, the docs, the 3-D Secure page). */
const API_DESTINATIONS = new Set(["empty", "document"]);
/** The docs page's own scripts and styles, served under the API's prefix. */
const DOCS_ASSETS = "/api/docs/assets/";

/**
 * Fetch Metadata: an answer of the API is never an image, a script, a style or the like. A picture
 * whose address is one of the API's would have every visitor's browser call it with their session:
 * a product's image set to `/api/admin/users/export` ran that export, audited under their name, in
 * each admin's browser that showed the catalog (found by an attack). Browsers say what they load a
 * request for in `Sec-Fetch-Dest`; other clients send no such header and pass.
 */
export function fetchMetadata() {
  return new Elysia({ name: "plumbing.fetch-metadata" }).onRequest(({ request }) => {
    const destination = request.headers.get("sec-fetch-dest");
    if (destination === null || API_DESTINATIONS.has(destination)) return;
    // The hook sees every request of the server (the pages' pictures and scripts too): the API's alone are refused.
    const path = pathOf(request);
    if (!path.startsWith("/api/") || path.startsWith(DOCS_ASSETS)) return;
    throw new HttpError(400, "The API answers scripts and pages, not a browser's image, script or style", { secFetchDest: destination });
  });
}
