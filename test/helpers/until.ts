/**
 * Waits on a condition the test cannot be told about by an event (a file deleted, a background
 * compaction done): checks it every 25 ms until it holds or `ms` have passed; resolves with its
 * last answer, for the test to assert.
 */
export async function until(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

/** Waits until this machine's clock is past `iso` (a timestamp the server wrote), so that the next one it writes is later. */
export async function clockPast(iso: string): Promise<boolean> {
  return until(() => Date.now() > Date.parse(iso), Math.max(0, Date.parse(iso) - Date.now()) + 5_000);
}
