/** A private CA and a server certificate for 127.0.0.1 and localhost signed by it (openssl), for TLS tests. */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestPki { caPath: string; ca: string; certPath: string; keyPath: string }

/** Whether openssl is there to make them. */
export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function makePki(dir: string): TestPki {
  const p = (f: string) => join(dir, f);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.pem'),
    '-days', '2', '-subj', '/CN=hostplane test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p('server.key'), '-out', p('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(p('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  ssl('x509', '-req', '-in', p('server.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('server.pem'), '-days', '2', '-extfile', p('ext.cnf'));
  return { caPath: p('ca.pem'), ca: readFileSync(p('ca.pem'), 'utf8'), certPath: p('server.pem'), keyPath: p('server.key') };
}
