import { makeUseCases } from "../../src/application/use-cases.ts";
import { createApp } from "../../src/adapters/http/app.ts";
import { silentLogger } from "../../src/adapters/log.ts";
import { createMemoryDeps } from "../../src/adapters/memory/deps.ts";

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

type Handler = { handle(request: Request): Promise<Response> };

/** Sends one request through app.handle; JSON bodies are encoded and decoded. */
export async function call<T = any>(app: Handler, method: string, path: string, options: CallOptions = {}): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.includes("json");
  return { status: response.status, headers: response.headers, body: isJson && text ? JSON.parse(text) : text };
}

export const TEST_SECRET = "test-secret-that-is-at-least-32-characters-long";
export const TEST_PUBLIC_URL = "http://localhost:3000";
export const SESSION_COOKIE = "storefront.session-token";

/** The whole HTTP app over in-memory fakes. */
export function createTestApp(deps = createMemoryDeps(), options: { trustProxy?: boolean } = {}) {
  const useCases = makeUseCases(deps, { publicUrl: TEST_PUBLIC_URL });
  const app = createApp(useCases, {
    logger: silentLogger,
    clock: deps.clock,
    publicUrl: TEST_PUBLIC_URL,
    session: {
      secret: TEST_SECRET,
      cookieName: SESSION_COOKIE,
      secureCookies: false,
      allowedOrigins: [TEST_PUBLIC_URL],
      trustProxy: options.trustProxy ?? true,
    },
  });
  return { app, deps, useCases, call: <T = any>(method: string, path: string, options?: CallOptions) => call<T>(app, method, path, options) };
}
