/**
 * Driving Debian's chromium with playwright-core (never a downloaded browser): launch with a fresh
 * profile, collect console errors, check a page with axe-core in light and dark mode, and write
 * its screenshots.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Where chromium is (HOOKLINE_CHROMIUM overrides). */
export const CHROMIUM = process.env.HOOKLINE_CHROMIUM ?? "/usr/bin/chromium";

/** Whether the browser tests can run here; when not, why and how to fix it. */
export const BROWSER_MISSING = existsSync(CHROMIUM)
  ? undefined
  : `browser tests skipped: no chromium at ${CHROMIUM}. Install Debian's: apt-get update && apt-get install -y chromium`;

if (BROWSER_MISSING) console.warn(BROWSER_MISSING);

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Screenshots go to docs/ui/ when HOOKLINE_UI_SCREENSHOTS=1 or when one is missing there;
 * otherwise to a temporary folder (they are still taken, so dark mode is rendered every run, but
 * a test run does not rewrite the committed images).
 */
const DOCS_DIR = fileURLToPath(new URL("../../../docs/ui/", import.meta.url));

/** A browser with one page. */
export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors so far. */
  errors: string[];
  /** Serious and critical axe violations found so far, with the page and scheme. */
  violations: string[];
  /** Checks the current page with axe and writes its screenshots, in light and dark. */
  capture(name: string): Promise<void>;
  close(): Promise<void>;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Launches chromium with a fresh profile (the user-data dir is removed on close). */
export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "hookline-ui-profile-"));
  const shots = process.env.HOOKLINE_UI_SCREENSHOTS
    ? DOCS_DIR
    : mkdtempSync(join(tmpdir(), "hookline-ui-shots-"));
  mkdirSync(DOCS_DIR, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 860 },
    colorScheme: "light",
    reducedMotion: "reduce",
  });
  context.setDefaultTimeout(30_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  const violations: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(`${page.url()}: ${msg.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`${page.url()}: ${error.message}`));

  async function axe(label: string): Promise<void> {
    if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(axeSource);
    const found = (await page.evaluate(`(async () => {
      const r = await window.axe.run(document, { resultTypes: ["violations"] });
      return r.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => v.id + " (" + v.impact + "): " + v.help + " at " + v.nodes.map((n) => n.target.join(" ")).join(", "));
    })()`)) as string[];
    for (const v of found) violations.push(`${label}: ${v}`);
  }

  return {
    context,
    page,
    errors,
    violations,
    async capture(name) {
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        // Media-query listeners (the code editor's theme) run in the next rendering steps.
        await page.evaluate("new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))");
        await axe(`${name} (${scheme})`);
        const file = `${name}-${scheme}.png`;
        const dir = existsSync(join(DOCS_DIR, file)) ? shots : DOCS_DIR;
        await page.screenshot({ path: join(dir, file), animations: "disabled", fullPage: true });
      }
      await page.emulateMedia({ colorScheme: "light" });
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      if (shots !== DOCS_DIR) rmSync(shots, { recursive: true, force: true });
    },
  };
}
