import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { usage } from "../src/cli/commands.ts";

// The README is the front door and docs/ the reference (issue 19): these keep them honest.

const ROOT = resolve(import.meta.dir, "..");
const DOCS = readdirSync(join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`);
const PAGES = ["README.md", ...DOCS];
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** Public sites a page may send a reader to; anything else must stay in the repository. */
const PUBLIC_HOSTS = new Set(["bun.sh", "docs.stripe.com"]);

/** The text outside fenced code blocks, line by line (a `#` in a shell block is no heading, a `](` there no link). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's anchor of a heading: lowercased, punctuation dropped, spaces to hyphens; a repeated one gets -1, -2… */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replaceAll("`", "");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Every link target of a page: inline `[text](target)`, autolinks `<https://…>` and reference definitions. */
function linksOf(markdown: string): string[] {
  const text = prose(markdown)
    .join("\n")
    .replace(/`[^`\n]*`/g, "");
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
  const auto = [...text.matchAll(/<((?:https?|file|ftp|mailto):[^>\s]+)>/g)].map((m) => m[1] as string);
  const definitions = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1] as string);
  return [...inline, ...auto, ...definitions];
}

/** What is wrong with one link of the page at `page` (a path from the repository's root), or null. */
function problemWith(page: string, target: string, readPage: (path: string) => string | null): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    const url = URL.parse(target);
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) return "is neither a page of this repository nor a public web page";
    return PUBLIC_HOSTS.has(url.hostname) ? null : `leaves the repository for ${url.hostname}`;
  }
  if (target.startsWith("/") || target.startsWith("\\") || target.startsWith("~")) return "is an absolute path";
  const [pathPart = "", anchor] = target.split("#", 2);
  const path = pathPart === "" ? page : relative(ROOT, resolve(ROOT, dirname(page), decodeURIComponent(pathPart)));
  if (path.startsWith("..")) return "leaves the repository";
  const content = readPage(path);
  if (content === null) return `points to ${path}, which does not exist`;
  if (anchor !== undefined && path.endsWith(".md") && !anchorsOf(content).has(anchor)) return `points to #${anchor}, no heading of ${path}`;
  return null;
}

function readIfThere(path: string): string | null {
  const full = join(ROOT, path);
  if (!existsSync(full)) return null;
  return statSync(full).isDirectory() ? "" : readFileSync(full, "utf8");
}

function problemsOf(page: string, markdown: string): string[] {
  return linksOf(markdown).flatMap((target) => {
    // A link within the page is checked against the page as given.
    const problem = problemWith(page, target, (path) => (path === page ? markdown : readIfThere(path)));
    return problem ? [`${page}: ${target} ${problem}`] : [];
  });
}

describe("the link check itself", () => {
  test("finds a missing file, a missing heading, the spec outside the repository, an absolute path and a foreign site", () => {
    const page = [
      "[ok](docs/api.md#the-served-documents) [ok too](#a-heading) [site](https://docs.stripe.com/testing)",
      "# A heading",
      "[gone](docs/nothing.md) [no heading](docs/api.md#nowhere) [spec](../shared/spec/storefront-api.md)",
      "[abs](/work/shared/spec/decisions.md) [away](https://example.com/x) <file:///etc/passwd>",
      "`[in code](docs/nothing.md)`",
      "```sh\n[in a block](docs/nothing.md)\n```",
    ].join("\n");
    expect(problemsOf("README.md", page)).toEqual([
      "README.md: docs/nothing.md points to docs/nothing.md, which does not exist",
      "README.md: docs/api.md#nowhere points to #nowhere, no heading of docs/api.md",
      "README.md: ../shared/spec/storefront-api.md leaves the repository",
      "README.md: /work/shared/spec/decisions.md is an absolute path",
      "README.md: https://example.com/x leaves the repository for example.com",
      "README.md: file:///etc/passwd is neither a page of this repository nor a public web page",
    ]);
  });

  test("reads anchors as GitHub makes them", () => {
    expect([...anchorsOf("# 3-D Secure on the `fake` processor\n## Rate limit\n## Rate limit\n```\n# not a heading\n```")]).toEqual([
      "3-d-secure-on-the-fake-processor",
      "rate-limit",
      "rate-limit-1",
    ]);
  });
});

describe("the README and docs/", () => {
  test("the README stays a front door: at most 150 lines", () => {
    expect(read("README.md").trimEnd().split("\n").length).toBeLessThanOrEqual(150);
  });

  test("every link leads to a file and heading of the repository, or to a public site allowed here", () => {
    expect(PAGES.flatMap((page) => problemsOf(page, read(page)))).toEqual([]);
  });

  test("nothing names the spec's folder outside the repository, even unlinked", () => {
    expect(PAGES.filter((page) => /\.\.\/shared|\/work\//.test(read(page)))).toEqual([]);
  });

  test("the README links to every page of docs/", () => {
    const linked = new Set(linksOf(read("README.md")).map((target) => target.split("#")[0]));
    expect(DOCS.filter((doc) => !linked.has(doc))).toEqual([]);
    expect(DOCS.length).toBeGreaterThanOrEqual(7);
  });

  test("every environment variable config.ts reads is in docs/configuration.md", () => {
    const source = readFileSync(join(ROOT, "src/config.ts"), "utf8");
    const schema = /const envSchema = z\.object\(\{([\s\S]*?)\n\}\);/.exec(source)?.[1] ?? "";
    const variables = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1] as string);
    expect(variables).toEqual(expect.arrayContaining(["PORT", "DATABASE_URL", "REDIS_KEY_PREFIX", "APPLE_PRIVATE_KEY"]));
    const documented = read("docs/configuration.md");
    expect(variables.filter((name) => !documented.includes(`\`${name}\``))).toEqual([]);
  });

  test("every command of `npm run cli -- --help` is in docs/configuration.md", () => {
    const commands = usage()
      .split("\n")
      .flatMap((line) => /^ {2}([a-z]+:[a-z-]+)/.exec(line)?.[1] ?? []);
    expect(commands).toEqual(expect.arrayContaining(["db:migrate", "user:create", "user:set-role"]));
    const documented = read("docs/configuration.md");
    expect(commands.filter((name) => !new RegExp(`\`${name}[\\s\`]`).test(documented))).toEqual([]);
  });
});
