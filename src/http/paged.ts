/**
 * The offset pagination every list shares: `limit` rows (50 unless asked) from `offset`, answered
 * as `{data, pagination: {total, limit, offset}}` (spec: Pagination).
 */
import { json, type Reply } from './reply.js';

const DEFAULT_LIMIT = 50;

/** The page a list's query asks for. */
export interface Page {
  limit: number;
  offset: number;
}

/** Fetches the page `query` asks for and answers it with its pagination. */
export async function paged(
  query: { limit?: number; offset?: number },
  fetch: (page: Page) => Promise<{ data: unknown[]; total: number }>,
): Promise<Reply> {
  const page = { limit: query.limit ?? DEFAULT_LIMIT, offset: query.offset ?? 0 };
  const { data, total } = await fetch(page);
  return json({ data, pagination: { total, ...page } });
}
