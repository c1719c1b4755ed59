/**
 * A port already in use refuses the start: two servers sharing a port (SO_REUSEPORT) would split
 * the traffic between two stores without a word. The refusal names the port and, on Linux, the
 * process most likely holding it (http/portHolder.ts finds it).
 */

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
