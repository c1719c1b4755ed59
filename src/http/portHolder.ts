/**
 * The process most likely holding a port, on Linux: the listening socket's inode from
 * /proc/net/tcp(6), then the process with that socket open. Only processes this user may inspect.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { listeningInodes, type PortHolder } from './portInUse.js';

/** The process holding a listening socket on `port` (Linux only, and only one this user may inspect); null otherwise. */
export function findPortHolder(port: number, proc = '/proc'): PortHolder | null {
  const inodes = new Set<string>();
  for (const table of ['net/tcp', 'net/tcp6']) {
    try {
      for (const inode of listeningInodes(readFileSync(join(proc, table), 'utf8'), port)) inodes.add(inode);
    } catch {
      // No such table (not Linux, or no IPv6).
    }
  }
  if (inodes.size === 0) return null;
  for (const pid of safeList(proc)) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    for (const fd of safeList(join(proc, pid, 'fd'))) {
      let target: string;
      try {
        target = readlinkSync(join(proc, pid, 'fd', fd));
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && inodes.has(m[1]!)) return { pid: Number(pid), command: commandOf(proc, pid) };
    }
  }
  return null;
}

function commandOf(proc: string, pid: string): string {
  try {
    const argv = readFileSync(join(proc, pid, 'cmdline'), 'utf8')
      .split('\0')
      .filter((a) => a !== '');
    const line = argv.join(' ');
    return line.length > 200 ? `${line.slice(0, 200)}…` : line || '?';
  } catch {
    return '?';
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
