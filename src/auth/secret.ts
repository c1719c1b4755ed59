import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { syncDir, writeFileAtomic } from '../durableFile.js';

/**
 * The store's secret: 32 random bytes kept as 64 hex digits in `<dataDir>/secret` (mode 0600). It
 * keys the API key hashes and signs session tokens, so it is handled with suspicion:
 *
 * - a secret file that is not exactly 64 hex digits (a 0-byte file is what a full disk leaves) stops
 *   the start: an empty or short key would let anyone sign session tokens;
 * - a new secret is written atomically to `secret.new` and becomes `secret` only after the store has
 *   recorded its check value (`secretCheck`) — so a crash at first start leaves either no secret or
 *   one the store knows;
 * - the store keeps the check value and refuses a secret that does not match it, or a new secret
 *   when it already has keys (a lost secret), instead of silently locking every key out.
 */
export const SECRET_FILE = 'secret';
const PENDING_FILE = 'secret.new';
const SECRET_BYTES = 32;
const FORM = /^[0-9a-f]{64}\n?$/;

/**
 * A start (or CLI command) refused for a reason the operator must act on; the message says how.
 * The exit code tells a supervisor what kind of refusal it was (README, "Exit codes").
 */
export class StartRefusal extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** What the store keeps to recognise its secret: an HMAC of a fixed text under the secret. */
export function secretCheck(secret: Buffer): string {
  return createHmac('sha256', secret).update('tracelake secret check v1', 'utf8').digest('hex');
}

/** The secret in `path`; null when there is no file; a refusal when the file is not a secret. */
export function readSecret(path: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(path, 'latin1');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (!FORM.test(text)) {
    throw new StartRefusal(
      `${path} is not a Tracelake secret (${text.length} bytes, expected 64 hex digits): it was damaged, ` +
        `perhaps by a full disk. Restore it from a backup of the data directory; if it is lost, run ` +
        `\`tracelake secret reset --data-dir ${dirname(path)}\` (every API key is revoked and new Full Access keys are printed).`,
    );
  }
  return Buffer.from(text.slice(0, 64), 'hex');
}

export interface SecretCandidate {
  secret: Buffer;
  /** True when the secret is not yet `secret` (new, or left pending by an interrupted first start). */
  pending: boolean;
}

/**
 * The secret this start will use: the data dir's `secret`, else a pending one from an interrupted
 * first start, else a new one written as pending. A pending secret must be verified by the store
 * and then `confirmSecret`ed (or `abandonSecret`ed).
 */
export function prepareSecret(dataDir: string): SecretCandidate {
  const current = readSecret(join(dataDir, SECRET_FILE));
  if (current) return { secret: current, pending: false };
  let pending: Buffer | null = null;
  try {
    pending = readSecret(join(dataDir, PENDING_FILE));
  } catch (e) {
    // Pending secrets are written atomically; one that is not whole was never confirmed either.
    if (!(e instanceof StartRefusal)) throw e;
  }
  if (pending) return { secret: pending, pending: true };
  const secret = newSecret();
  writeFileAtomic(join(dataDir, PENDING_FILE), secret.toString('hex') + '\n');
  return { secret, pending: true };
}

/** Makes a pending secret the store's secret. */
export function confirmSecret(dataDir: string): void {
  renameSync(join(dataDir, PENDING_FILE), join(dataDir, SECRET_FILE));
  syncDir(dataDir);
}

/** Drops a pending secret the store refused. */
export function abandonSecret(dataDir: string): void {
  try {
    unlinkSync(join(dataDir, PENDING_FILE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** A new secret, not yet written anywhere. */
export function newSecret(): Buffer {
  return randomBytes(SECRET_BYTES);
}

/** Makes `secret` the store's secret file, whatever was there (the `secret reset` recovery). */
export function replaceSecret(dataDir: string, secret: Buffer): void {
  writeFileAtomic(join(dataDir, SECRET_FILE), secret.toString('hex') + '\n');
  abandonSecret(dataDir);
}

/** How the store judged a secret (see `verifySecret` in store/admin/identity.ts). */
export type SecretVerdict = 'ok' | 'mismatch' | 'lost';

/** The refusal for a verdict other than ok. */
export function refusalFor(verdict: Exclude<SecretVerdict, 'ok'>, dataDir: string): StartRefusal {
  const recover = `Restore ${join(dataDir, SECRET_FILE)} from a backup of the data directory; if it is lost for good, run \`tracelake secret reset --data-dir ${dataDir}\` (every API key is revoked and new Full Access keys are printed).`;
  return new StartRefusal(
    verdict === 'mismatch'
      ? `${join(dataDir, SECRET_FILE)} is not the secret this store was created with (its check value differs), so no API key would verify. ${recover}`
      : `The store in ${dataDir} has API keys but its secret file is missing, so no key would verify. ${recover}`,
  );
}
