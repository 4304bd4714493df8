/**
 * Headless Chromium for end-to-end tests (playwright-core): a browser that may reach the
 * loopback service only (anything else is refused and recorded, so a page that would call
 * out fails its test), and a page's script errors collected. Runs when `CHROMIUM_PATH`
 * names a Chromium binary (Debian: /usr/bin/chromium).
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** The Chromium binary, when this machine has one. */
export const CHROMIUM_PATH = Deno.env.get("CHROMIUM_PATH");

/** A browser whose every request outside 127.0.0.1 is refused and pushed onto `foreign`. */
export async function launchLoopbackBrowser(
  userDataDir: string,
  foreign: string[],
): Promise<BrowserContext> {
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true, // the workbench's downloads are saved and read back
  });
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (["data:", "blob:"].includes(url.protocol) || url.hostname === "127.0.0.1") {
      return route.continue();
    }
    foreign.push(url.href);
    return route.abort();
  });
  return context;
}

/** Pushes the script errors and console errors of `page` onto `problems`. */
export function watchProblems(page: Page, problems: string[]): void {
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`${page.url()}: ${error.message}`));
}
