/** src/http/portInUse.ts: the refusal's line, and the listening sockets read from /proc/net/tcp. */
import t from 'tap';
import { EXIT_PORT_IN_USE, listeningInodes, PortInUse, portInUseMessage } from '../../../src/http/portInUse.js';

// Lines as /proc/net/tcp prints them: 0x10E2 is 4322, 0x0CEA 3306; state 0A is LISTEN, 01 ESTABLISHED.
const TABLE = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:10E2 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 41234 1 0000000000000000 100 0 0 10 0',
  '   1: 00000000:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000   105        0 555 1 0000000000000000 100 0 0 10 0',
  '   2: 0100007F:10E2 0100007F:D2A4 01 00000000:00000000 00:00000000 00000000     0        0 41300 1 0000000000000000 20 4 30 10 -1',
  '   3: 0100007F:10E2 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 0 1 0000000000000000 100 0 0 10 0',
  '',
].join('\n');

t.test('the inodes of the sockets listening on a port', async (t) => {
  t.same(
    listeningInodes(TABLE, 4322),
    ['41234'],
    'the listening one; not the connection, not a socket without an inode',
  );
  t.same(listeningInodes(TABLE, 3306), ['555']);
  t.same(listeningInodes(TABLE, 80), [], 'nothing on another port');
  t.same(listeningInodes('header only\n', 4322), []);
  t.same(listeningInodes('h\n 0: short line\n', 4322), [], 'a short line is skipped');
});

t.test('the line names the port, the address, and the holder when known', async (t) => {
  t.equal(
    portInUseMessage('127.0.0.1', 4318, { pid: 4242, command: 'node dist/src/cli.js serve' }),
    'Port 4318 on 127.0.0.1 is already in use, most likely by process 4242 (node dist/src/cli.js serve). Stop that process, or start Tracelake on another port (--port or TRACELAKE_PORT).',
  );
  t.equal(
    portInUseMessage('0.0.0.0', 80, null),
    'Port 80 on 0.0.0.0 is already in use. Stop that process, or start Tracelake on another port (--port or TRACELAKE_PORT).',
  );
  const e = new PortInUse('::1', 9);
  t.same([e.host, e.port, e.message], ['::1', 9, 'cannot listen on ::1:9: the address is in use']);
  t.equal(EXIT_PORT_IN_USE, 98, 'the exit code the README documents');
});
