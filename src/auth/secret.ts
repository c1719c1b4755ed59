import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The store's secret (32 random bytes), created on first start as `<dataDir>/secret` with mode 0600.
 * It keys the API key hashes and signs session tokens; losing it invalidates every key.
 */
export function loadOrCreateSecret(dataDir: string): Buffer {
  const path = join(dataDir, 'secret');
  try {
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const secret = randomBytes(32);
  // 'wx' fails if another process created it meanwhile, rather than overwriting its secret.
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, secret.toString('hex') + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return secret;
}
