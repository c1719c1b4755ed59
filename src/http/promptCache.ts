/**
 * Answers to prompt fetches, kept in the main thread: applications fetch a prompt by name and label
 * on their hot path, and a hit is answered without a trip to the store thread. Every write to an
 * app's prompts (a version, a label moved, a discovery) goes through this process, which drops the
 * app's answers at once (a generation number per app: invalidation is O(1)); entries past the size
 * bound go least recently used first.
 */

export interface CachedAnswer {
  /** The JSON body, serialised once. */
  body: string;
  etag: string;
}

interface Entry extends CachedAnswer {
  generation: number;
}

export class PromptCache {
  private readonly entries = new Map<string, Entry>();
  private readonly generations = new Map<string, number>();

  constructor(private readonly maxEntries = 10_000) {}

  private static appKey(tenantId: string, appId: string): string {
    return `${tenantId}/${appId}`;
  }

  private static key(tenantId: string, appId: string, name: string, selector: string): string {
    return `${tenantId}/${appId}\n${name}\n${selector}`;
  }

  /** The generation of an app's prompts: read it before asking the store, pass it to `set`. */
  generation(tenantId: string, appId: string): number {
    return this.generations.get(PromptCache.appKey(tenantId, appId)) ?? 0;
  }

  get(tenantId: string, appId: string, name: string, selector: string): CachedAnswer | undefined {
    const key = PromptCache.key(tenantId, appId, name, selector);
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    if (hit.generation !== this.generation(tenantId, appId)) return undefined;
    // Most recently used last.
    this.entries.set(key, hit);
    return hit;
  }

  /**
   * Keeps an answer read from the store at `generation`; an answer read before a write that has
   * happened since is not kept (it may already be stale).
   */
  set(tenantId: string, appId: string, name: string, selector: string, generation: number, answer: CachedAnswer): void {
    if (generation !== this.generation(tenantId, appId)) return;
    const key = PromptCache.key(tenantId, appId, name, selector);
    this.entries.delete(key);
    this.entries.set(key, { ...answer, generation });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Drops every answer of the app (its prompts changed). */
  invalidate(tenantId: string, appId: string): void {
    const k = PromptCache.appKey(tenantId, appId);
    this.generations.set(k, (this.generations.get(k) ?? 0) + 1);
  }

  get size(): number {
    return this.entries.size;
  }
}
