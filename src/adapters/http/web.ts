import { createHash } from "node:crypto";
import { mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { type AnyElysia, Elysia, NotFoundError } from "elysia";
import type { Logger } from "../../application/ports/system.ts";
import { ANY_HOSTNAME, carriesCredentials, withHost } from "./plumbing/request-context.ts";

/**
 * The two web apps (decisions §13): the storefront at `/` and the back office at `/admin`, built
 * from web/ by Bun's bundler (HTML entry points: each page's script and stylesheet are bundled,
 * minified and given hashed names) and served from memory by this one adapter.
 */

/** Raised when the build's options change, so a cached build from older options is not used. */
const BUILD_FORMAT = "1";
export const ASSETS_PREFIX = "/assets/";
const APPS = { storefront: "storefront/index.html", admin: "admin/index.html" } as const;

export interface WebFile {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  /** The body gzipped, for scripts and stylesheets (a browser that accepts it gets a third of the bytes). */
  gzipped?: Uint8Array<ArrayBuffer>;
}

export interface WebBuild {
  /** A hash of everything the build is made from: the sources, the lockfile, Bun's version, the options. */
  key: string;
  fromCache: boolean;
  storefront: WebFile;
  admin: WebFile;
  /** The hashed assets by their path under /assets/ (`storefront/index-1a2b3c4d.js`). */
  assets: ReadonlyMap<string, WebFile>;
}

export interface WebBuildSettings {
  /** The web/ folder. */
  sourceDir: string;
  /** Where builds are kept between starts (one folder per key); null builds every time. */
  cacheDir: string | null;
  /** Hashed with the sources: the dependencies' versions (package-lock.json). */
  lockFile?: string;
  logger?: Logger;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

async function keyOf({ sourceDir, lockFile }: WebBuildSettings): Promise<string> {
  const hash = createHash("sha256").update(`${BUILD_FORMAT}\0${Bun.version}\0`);
  if (lockFile) hash.update(await readFile(lockFile).catch(() => Buffer.alloc(0)));
  for (const file of await filesUnder(sourceDir)) {
    hash.update(`\0${relative(sourceDir, file)}\0`);
    hash.update(await readFile(file));
  }
  return hash.digest("hex").slice(0, 20);
}

const typeOf = (path: string) => Bun.file(path).type;

async function bundle(sourceDir: string): Promise<Map<string, Uint8Array<ArrayBuffer>>> {
  const result = await Bun.build({
    entrypoints: Object.values(APPS).map((page) => join(sourceDir, page)),
    root: sourceDir,
    target: "browser",
    minify: true,
    publicPath: ASSETS_PREFIX,
    naming: { entry: "[dir]/[name].[ext]", chunk: "[dir]/[name]-[hash].[ext]", asset: "[dir]/[name]-[hash].[ext]" },
  });
  if (!result.success) throw new AggregateError(result.logs, "The web pages did not build");
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const output of result.outputs) files.set(output.path.replace(/^\.\//, ""), new Uint8Array(await output.arrayBuffer()));
  return files;
}

async function readCached(dir: string): Promise<Map<string, Uint8Array<ArrayBuffer>> | null> {
  const list = await readFile(join(dir, "files.json"), "utf8").catch(() => null);
  if (list === null) return null;
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const path of JSON.parse(list) as string[]) files.set(path, new Uint8Array(await readFile(join(dir, path))));
  return files;
}

/** Writes the build beside the others, then renames it into place (a reader never sees half of one), and drops older builds. */
async function writeCached(cacheDir: string, key: string, files: Map<string, Uint8Array<ArrayBuffer>>): Promise<void> {
  const partial = join(cacheDir, `${key}.${process.pid}.partial`);
  for (const [path, body] of files) {
    await mkdir(dirname(join(partial, path)), { recursive: true });
    await writeFile(join(partial, path), body);
  }
  await writeFile(join(partial, "files.json"), JSON.stringify([...files.keys()]));
  await rename(partial, join(cacheDir, key)).catch(async (error: unknown) => {
    // Another process put the same build there first.
    await rm(partial, { recursive: true, force: true });
    if ((error as { code?: string }).code !== "ENOTEMPTY" && (error as { code?: string }).code !== "EEXIST") throw error;
  });
  for (const entry of await readdir(cacheDir)) {
    if (entry !== key && !entry.endsWith(".partial")) await rm(join(cacheDir, entry), { recursive: true, force: true });
  }
}

/**
 * The built apps: from the cache when a build of the same sources is there, else built now (a few
 * hundred milliseconds) and kept for the next start. A cache that cannot be written (a read-only
 * image) only means building at every start.
 */
export async function buildWebApps(settings: WebBuildSettings): Promise<WebBuild> {
  const started = performance.now();
  const key = await keyOf(settings);
  const cached = settings.cacheDir ? await readCached(join(settings.cacheDir, key)).catch(() => null) : null;
  const files = cached ?? (await bundle(settings.sourceDir));
  if (!cached && settings.cacheDir) {
    await mkdir(settings.cacheDir, { recursive: true })
      .then(() => writeCached(settings.cacheDir!, key, files))
      .catch((error: unknown) => settings.logger?.warn("web.cache_unwritable", { dir: settings.cacheDir, error: String(error) }));
  }
  const page = (path: string): WebFile => {
    const body = files.get(path);
    if (!body) throw new Error(`The web build has no ${path}`);
    return { body, type: "text/html; charset=utf-8" };
  };
  const assets = new Map<string, WebFile>();
  for (const [path, body] of files) {
    if (path.endsWith(".html")) continue;
    const compressible = /\.(js|css|svg|json|map)$/.test(path);
    assets.set(path, { body, type: typeOf(path), ...(compressible ? { gzipped: new Uint8Array(Bun.gzipSync(body, { level: 9 })) } : {}) });
  }
  settings.logger?.info("web.ready", { key, fromCache: cached !== null, ms: Math.round(performance.now() - started) });
  return { key, fromCache: cached !== null, storefront: page(APPS.storefront), admin: page(APPS.admin), assets };
}

/** Stripe's hosts, per Stripe's CSP guide: Stripe.js, its frames (3-D Secure included) and its API. */
const STRIPE = {
  script: "https://js.stripe.com https://*.js.stripe.com",
  frame: "https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com",
  connect: "https://api.stripe.com",
  img: "https://*.stripe.com",
};

/** The Content-Security-Policy of everything the web adapter serves: only the shop's own files, Stripe's only when it takes the payments. */
export function contentSecurityPolicy(stripe: boolean): string {
  const extra = (hosts: string) => (stripe ? ` ${hosts}` : "");
  return [
    "default-src 'self'",
    `script-src 'self'${extra(STRIPE.script)}`,
    "style-src 'self'",
    `img-src 'self' data:${extra(STRIPE.img)}`,
    "font-src 'self'",
    `connect-src 'self'${extra(STRIPE.connect)}`,
    `frame-src ${stripe ? STRIPE.frame : "'none'"}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export interface WebRoutesSettings {
  /** Stripe takes the payments: its hosts are allowed (the payment step loads Stripe.js). */
  stripe: boolean;
  sessionCookieName: string;
}

/** Accept-Encoding names gzip, and not with q=0. */
function acceptsGzip(request: Request): boolean {
  const accepted = request.headers.get("accept-encoding") ?? "";
  return accepted.split(",").some((part) => {
    const [coding, ...params] = part.trim().split(";");
    const q = params.map((param) => param.trim()).find((param) => param.startsWith("q="));
    return (coding === "gzip" || coding === "*") && (q === undefined || Number(q.slice(2)) > 0);
  });
}

const isApi = (path: string) => path === "/api" || path.startsWith("/api/");
const isAdmin = (path: string) => path === "/admin" || path.startsWith("/admin/");

/**
 * GET (and HEAD) of everything outside /api: the hashed assets, cached for a year (never stored
 * when the request carries a session, decisions §10), scripts and stylesheets gzipped for a browser
 * that accepts it; an unknown file under /assets/ a 404; any
 * other path the app's page (`no-store`), which routes on the client: /admin and below the back
 * office, the rest the storefront. Every answer carries the CSP and nosniff. A path under /api that
 * no route took is left to the API's own answer (a JSON 404, or a 405 naming its methods).
 */
function webRoutes(build: WebBuild, { stripe, sessionCookieName }: WebRoutesSettings) {
  const policy = contentSecurityPolicy(stripe);
  const headers = (type: string, caching: string) => ({
    "content-type": type,
    "cache-control": caching,
    "content-security-policy": policy,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
  });
  return new Elysia({ name: "web" }).get(
    "/*",
    ({ request, path }) => {
      if (isApi(path)) throw new NotFoundError();
      if (path.startsWith(ASSETS_PREFIX)) {
        const asset = build.assets.get(path.slice(ASSETS_PREFIX.length));
        if (!asset) return new Response("Not found", { status: 404, headers: headers("text/plain; charset=utf-8", "no-store") });
        const caching = carriesCredentials(request, sessionCookieName) ? "no-store" : "public, max-age=31536000, immutable";
        if (!asset.gzipped) return new Response(asset.body, { headers: headers(asset.type, caching) });
        const vary = { vary: "Origin, Accept-Encoding" };
        if (!acceptsGzip(request)) return new Response(asset.body, { headers: { ...headers(asset.type, caching), ...vary } });
        return new Response(asset.gzipped, { headers: { ...headers(asset.type, caching), ...vary, "content-encoding": "gzip" } });
      }
      const page = isAdmin(path) ? build.admin : build.storefront;
      return new Response(page.body, { headers: headers(page.type, "no-store") });
    },
    { detail: { hide: true } },
  );
}

/** The API app with the web apps beside it, as the shop serves them: /api/* first, every other GET a page or an asset. */
export function withWebApps(api: AnyElysia, build: WebBuild, settings: WebRoutesSettings) {
  // A request without a host goes round this app, pages and all, not the API's alone (withHost).
  const shop: AnyElysia = new Elysia({ handler: ANY_HOSTNAME })
    .onRequest(withHost((request) => shop.handle(request)))
    .use(api)
    .use(webRoutes(build, settings));
  return shop;
}
