/**
 * A port already in use refuses the start: two servers sharing a port (SO_REUSEPORT) would split
 * the traffic between two stores without a word. The refusal names the port and, on Linux, the
 * process most likely holding it (read from /proc: the listening socket's inode, then the process
 * with that socket open).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Exit code of a start refused because the port is taken (98 is EADDRINUSE on Linux). */
export const EXIT_PORT_IN_USE = 98;

export class PortInUse extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`cannot listen on ${host}:${port}: the address is in use`);
  }
}

/** The one line the refusal prints. */
export function portInUseMessage(host: string, port: number, holder: PortHolder | null): string {
  const who = holder ? `, most likely by process ${holder.pid} (${holder.command})` : '';
  return (
    `Port ${port} on ${host} is already in use${who}. ` +
    `Stop that process, or start Tracelake on another port (--port or TRACELAKE_PORT).`
  );
}

export interface PortHolder {
  pid: number;
  command: string;
}

/** Inodes of the sockets listening on `port`, from the text of /proc/net/tcp or tcp6. */
export function listeningInodes(procNetTcp: string, port: number): string[] {
  const inodes: string[] = [];
  for (const line of procNetTcp.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; the inode is the tenth field.
    if (f.length < 10 || f[3] !== '0A') continue;
    if (parseInt(f[1]!.split(':')[1]!, 16) === port && f[9] !== '0') inodes.push(f[9]!);
  }
  return inodes;
}

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
    const argv = readFileSync(join(proc, pid, 'cmdline'), 'utf8').split('\0').filter((a) => a !== '');
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
