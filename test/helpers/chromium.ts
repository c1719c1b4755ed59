/**
 * Debian's headless Chromium driven by playwright-core (no browser download) for the web UI's
 * tests: where it is, whether a test runs without it, one page whose script errors are collected,
 * and a wait on the page's elements.
 */
import { existsSync } from 'node:fs';
import { chromium, type Page } from 'playwright-core';
import type { Test } from 'tap';

export const CHROMIUM = process.env.TRACELAKE_CHROMIUM ?? '/usr/bin/chromium';

/** A test's `skip` option: off where Chromium is installed, and in CI, which must have it. */
export const withoutChromium =
  existsSync(CHROMIUM) || process.env.CI
    ? false
    : `no Chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run does)`;

/** A page of a browser closed when `t` ends, with the script errors it threw. */
export async function openPage(
  t: Test,
  viewport: { width: number; height: number },
  timeout = 20_000,
): Promise<{ page: Page; pageErrors: string[] }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
    timeout: 60_000,
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(timeout);
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const failed: string[] = [];
  failedRequests.set(page, failed);
  page.on('requestfailed', (r) => failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 500) failed.push(`${r.request().method()} ${r.url()}: ${r.status()}`);
  });
  return { page, pageErrors };
}

/** Requests of each page that failed or answered 5xx, for a wait that times out to tell. */
const failedRequests = new WeakMap<Page, string[]>();

/**
 * Waits until `selector` matches `n` elements (a function, not a string: the page's CSP forbids
 * eval). When it times out, the error says what matched instead and which requests failed.
 */
export async function countIs(page: Page, selector: string, n: number): Promise<void> {
  type Doc = { querySelectorAll(s: string): { length: number } };
  try {
    await page.waitForFunction(
      ([sel, want]) =>
        (globalThis as unknown as { document: Doc }).document.querySelectorAll(sel as string).length === want,
      [selector, n] as const,
    );
  } catch (e) {
    const found = await page
      .locator(selector)
      .allTextContents()
      .catch(() => ['(page gone)']);
    const failed = failedRequests.get(page) ?? [];
    throw new Error(
      `waited for ${n} of ${selector}, found ${found.length}: ${JSON.stringify(found.slice(0, 10))}; ` +
        `failed requests: ${failed.length ? failed.join('; ') : 'none'} (${(e as Error).message})`,
    );
  }
}
