#!/usr/bin/env node
// `npm run lint:links`: every relative link and image of README.md and docs/**/*.md points to a file
// that exists, and every anchor (`page.md#a-heading`, `#a-heading`) to a heading of that page, with
// GitHub's slugs (github-slugger: lower case, punctuation dropped, spaces to hyphens, `-1`, `-2`...
// for repeated headings) or an HTML `id`/`name`. External links (https:, mailto:) are not fetched.
// `node scripts/check-links.mjs [root]` checks another folder (the tests use a fixture).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: true });
const root = resolve(process.argv[2] ?? ".");

/** README.md and every .md file under docs/. */
function pages() {
  const found = existsSync(join(root, "README.md")) ? [join(root, "README.md")] : [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".md")) found.push(path);
    }
  };
  walk(join(root, "docs"));
  return found;
}

/** The text a heading renders to: its text and inline code, without markup. */
function textOf(inline) {
  return (inline.children ?? [])
    .filter((t) => t.type === "text" || t.type === "code_inline")
    .map((t) => t.content)
    .join("");
}

const HTML_ANCHOR = /<a\s[^>]*\b(?:id|name)="([^"]+)"/g;

/** A page's anchors and links (with their lines). */
function parse(path) {
  const tokens = md.parse(readFileSync(path, "utf8"), {});
  const slugger = new GithubSlugger();
  const anchors = new Set();
  const links = [];
  let line = 1;
  tokens.forEach((token, i) => {
    // Inline tokens of table cells have no line of their own: the row's is the nearest.
    if (token.map) line = token.map[0] + 1;
    if (token.type === "heading_open") anchors.add(slugger.slug(textOf(tokens[i + 1])));
    if (token.type === "html_block") for (const m of token.content.matchAll(HTML_ANCHOR)) anchors.add(m[1]);
    if (token.type !== "inline") return;
    for (const child of token.children ?? []) {
      if (child.type === "html_inline")
        for (const m of child.content.matchAll(HTML_ANCHOR)) anchors.add(m[1]);
      const target =
        child.type === "link_open"
          ? child.attrGet("href")
          : child.type === "image"
            ? child.attrGet("src")
            : null;
      if (target !== null) links.push({ target, line });
    }
  });
  return { anchors, links };
}

const parsed = new Map();
const parsedPage = (path) => {
  if (!parsed.has(path)) parsed.set(path, parse(path));
  return parsed.get(path);
};

const problems = [];
for (const page of pages()) {
  for (const { target, line } of parsedPage(page).links) {
    // External (a scheme such as https: or mailto:, or protocol-relative): not checked here.
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue;
    const hash = target.indexOf("#");
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const file =
      pathPart === ""
        ? page
        : pathPart.startsWith("/")
          ? join(root, pathPart)
          : resolve(dirname(page), pathPart);
    const where = `${relative(root, page)}:${line}: ${target}`;
    if (!existsSync(file)) {
      problems.push(`${where}: no file ${relative(root, file)}`);
      continue;
    }
    if (anchor === undefined || anchor === "") continue;
    if (!file.endsWith(".md")) {
      if (!/^L\d+(-L\d+)?$/.test(anchor)) problems.push(`${where}: only a .md page has anchors`);
      continue;
    }
    if (!parsedPage(file).anchors.has(anchor))
      problems.push(`${where}: no heading #${anchor} in ${relative(root, file)}`);
  }
}

if (problems.length > 0) {
  console.error(`${problems.length} broken link${problems.length === 1 ? "" : "s"}:\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`links: ${parsed.size} pages, every relative link and anchor resolves`);
