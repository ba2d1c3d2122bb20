import { OAuth2Tokens } from "arctic";
import { type FetchBounds, fetchWithin } from "../bounded-fetch.ts";

/** What one sign-in's calls to its provider may take: all of them together within the time, each answer within the size. */
export interface ProviderLimits {
  timeoutMs: number;
  maxBytes: number;
}

/** A provider answers in well under a second, with a few kilobytes; the browser waiting on the callback gives up at about 30 s. */
export const PROVIDER_LIMITS: ProviderLimits = { timeoutMs: 10_000, maxBytes: 256 * 1024 };

/** How the client authenticates to the token endpoint: HTTP Basic (RFC 6749 §2.3.1), or fields of the form. */
export type ClientAuth = { basic: { clientId: string; clientSecret: string } } | { form: Record<string, string> };

/**
 * The calls of one sign-in (the token exchange, then the profile), under one deadline that starts
 * here, each answer read up to the size, no redirect followed.
 *
 * The token request is sent here, not by arctic: arctic 3.7 sends it with the global fetch and takes
 * no fetch, signal or size limit (not its providers' validateAuthorizationCode, not OAuth2Client, and
 * its request helpers are not exported; the package is finished, so none will come). A timer raced
 * against its promise would answer in time but leave the request and its whole body being read;
 * replacing the global fetch would reach every other caller in the process. So this sends the
 * request with the fields and client authentication arctic sends for each of these providers (RFC
 * 6749 §4.1.3; its User-Agent is the shop's) and reads the answer with
 * arctic's own OAuth2Tokens; arctic still builds the authorization URL, the PKCE challenge and the
 * state, and decodes the id token.
 */
export function providerCalls(limits: ProviderLimits) {
  const bounds: FetchBounds = { signal: AbortSignal.timeout(limits.timeoutMs), maxBytes: limits.maxBytes };
  const json = async (url: string | URL, init: RequestInit = {}): Promise<unknown> =>
    JSON.parse(new TextDecoder().decode(await fetchWithin(url, init, bounds)));
  return {
    json,
    async tokens(endpoint: string, form: Record<string, string>, auth: ClientAuth): Promise<OAuth2Tokens> {
      const headers = new Headers({ "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json", "User-Agent": "storefront" });
      if ("basic" in auth) headers.set("Authorization", `Basic ${Buffer.from(`${auth.basic.clientId}:${auth.basic.clientSecret}`).toString("base64")}`);
      const body = new URLSearchParams({ grant_type: "authorization_code", ...form, ...("form" in auth ? auth.form : {}) });
      const data = await json(endpoint, { method: "POST", headers, body });
      // GitHub refuses a code with 200 and an error body.
      if (typeof data !== "object" || data === null || "error" in data) throw new Error(`${endpoint} refused the code`);
      return new OAuth2Tokens(data);
    },
  };
}
