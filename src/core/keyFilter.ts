/**
 * A Bloom filter over 64-bit keys (the summaries' `trace_key`): "no" means the key was never
 * added; "maybe" is wrong for about one key in `1 / falsePositives` of those never added. Keys are
 * given as their two 32-bit halves, so that no BigInt is made a key; each half is mixed first,
 * because a key is only as random as the id it was cut from (some tracers put a timestamp first).
 * Probe i of k is bit (h1 + i·h2) mod m (double hashing).
 */

/** A filter sized for `capacity` keys at `falsePositives` (e.g. 1e-6) once that many are in. */
export class KeyFilter {
  readonly bits: number;
  readonly probes: number;
  private readonly words: Uint32Array;
  /** Keys added (with repeats): past `capacity`, "maybe" comes more often than asked for. */
  added = 0;

  constructor(
    readonly capacity: number,
    falsePositives: number,
  ) {
    const perKey = Math.ceil(-Math.log(falsePositives) / Math.LN2 ** 2);
    this.bits = Math.max(64, Math.ceil((Math.max(1, capacity) * perKey) / 32) * 32);
    this.probes = Math.max(1, Math.round(perKey * Math.LN2));
    this.words = new Uint32Array(this.bits / 32);
  }

  add(high: number, low: number): void {
    let [h, step] = hashes(high, low);
    for (let i = 0; i < this.probes; i++) {
      const at = h % this.bits;
      this.words[at >>> 5]! |= 1 << (at & 31);
      h = (h + step) >>> 0;
    }
    this.added++;
  }

  mayHave(high: number, low: number): boolean {
    let [h, step] = hashes(high, low);
    for (let i = 0; i < this.probes; i++) {
      const at = h % this.bits;
      if ((this.words[at >>> 5]! & (1 << (at & 31))) === 0) return false;
      h = (h + step) >>> 0;
    }
    return true;
  }

  /** Bytes the filter holds. */
  get bytes(): number {
    return this.words.byteLength;
  }
}

/** MurmurHash3's finaliser: every input bit moves about half the output bits. */
function mix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85eb_ca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2_ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The first probe and the step between probes (odd, so it never repeats within 2^32 probes). */
function hashes(high: number, low: number): [number, number] {
  const a = mix(high ^ mix(low));
  const b = mix(low ^ 0x9e37_79b9 ^ a);
  return [a, (b | 1) >>> 0];
}
