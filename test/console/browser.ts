/**
 * One headless Chromium, driven by playwright-core, for the console's
 * end-to-end tests, and the guards every page runs under: a request to
 * another origin, or a Content-Security-Policy violation, is recorded and
 * fails the test that reads `problems`.
 *
 * The browser is Debian's `chromium` where it is installed, else the one the
 * `@sparticuz/chromium` devDependency ships inside its package: `npm ci`
 * brings it where a tool's own browser download fails, so a fresh clone's
 * `npm test` needs nothing installed beforehand.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** The browser's executable: Debian's where present, else the packaged one (unpacked to the temp folder on first use). */
export async function chromiumPath(): Promise<string> {
  if (existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  // An ES module only: imported, not required.
  const { default: packaged } = await import('@sparticuz/chromium');
  return packaged.executablePath();
}

export interface ConsoleBrowser {
  readonly browser: Browser;
  /** Requests to other origins and CSP violations seen on any page so far. */
  readonly problems: string[];
  newPage(width?: number, height?: number): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

export async function launchBrowser(origin: string): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({
    executablePath: await chromiumPath(),
    headless: true,
    // Our own flags, not the package's `args`: those turn off web security and site isolation, which the CSP and
    // other-origin guards below rely on.
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'
    ],
  });
  const problems: string[] = [];
  return {
    browser,
    problems,
    async newPage(width = 1280, height = 900) {
      const context = await browser.newContext({ viewport: { width, height }, serviceWorkers: 'block' });
      await context.exposeBinding('__reportCsp', (_source, text: string) => { problems.push(`CSP violation: ${text}`); });
      // An init script runs outside the page's CSP: it only listens.
      await context.addInitScript({
        content: "document.addEventListener('securitypolicyviolation', (e) => window.__reportCsp(e.violatedDirective + ' blocked ' + e.blockedURI));",
      });
      const page = await context.newPage();
      page.on('request', (request) => {
        const url = request.url();
        if (url.startsWith('data:')) return;
        if (new URL(url).origin !== origin) problems.push(`request to another origin: ${url}`);
      });
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) problems.push(`CSP (console): ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      return { context, page };
    },
    async close() {
      await browser.close();
    },
  };
}
