/**
 * One headless Chromium (Debian's package, driven by playwright-core) for the
 * console's end-to-end tests, and the guards every page runs under: a request
 * to another origin, or a Content-Security-Policy violation, is recorded and
 * fails the test that reads `problems`.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export interface ConsoleBrowser {
  readonly browser: Browser;
  /** Requests to other origins and CSP violations seen on any page so far. */
  readonly problems: string[];
  newPage(width?: number, height?: number): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

export async function launchBrowser(origin: string): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
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
