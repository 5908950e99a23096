/** knotd's generated configuration and the names and addresses that go into it. Pure functions, no I/O. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isZoneName } from '../../zonefiles/names';
import { UnservableZoneError, type ZoneConfig } from './port';

/** The DNSSEC policy signed zones reference (`dnssec-policy`). */
export const POLICY_ID = 'hostplane';
/** The same keys and algorithm, with CDS/CDNSKEY DELETE published (RFC 8078): a zone on its way to unsigned
 * asks its parent to remove the DS while its signatures still validate. */
export const DS_DELETE_POLICY_ID = 'hostplane-ds-delete';

/** How knotd signs a zone: not; signing; or signing while asking the parent to delete its DS. */
export type Signing = 'off' | 'on' | 'delete-ds';

/** The `dnssec-policy` of a signed zone. */
export const policyOf = (signing: Exclude<Signing, 'off'>): string => (signing === 'on' ? POLICY_ID : DS_DELETE_POLICY_ID);

export const signingOf = (z: { dnssec: boolean; deleteDs?: boolean }): Signing => (!z.dnssec ? 'off' : z.deleteDs ? 'delete-ds' : 'on');

/**
 * `example.com` → `example.com.`. Zone names end up in knotd's configuration, in knotc arguments and in a
 * file name: only names of the API's zone name rule (`checkZoneName`) get there, never escaped ones.
 * Throws {@link UnservableZoneError} for any other.
 */
export function zoneFqdn(name: string): string {
  if (!isZoneName(name)) throw new UnservableZoneError(name);
  return `${name}.`;
}

/** Parses `127.0.0.1:53` or `[::1]:53`; port 0 ("any free one") only where `anyPort` says a caller picks it. */
export function parseHostPort(value: string, anyPort = false): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(value);
  const port = Number(m?.[3]);
  if (!m || port < (anyPort ? 0 : 1) || port > 65535) throw new Error(`expected ip:port or [ipv6]:port, got ${JSON.stringify(value)}`);
  return { host: (m[1] ?? m[2])!, port };
}

/** `host:port`, or `[v6]:port`: what parseHostPort reads. */
export const formatHostPort = ({ host, port }: { host: string; port: number }): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** The file knotd serves a zone from: `template.file` is `%s.zone`. */
export function zoneFilePath(zonesDir: string, name: string): string {
  zoneFqdn(name);
  return join(zonesDir, `${name}.zone`);
}

/** The zones that have a file in `zonesDir` (names that break the rule never get one). */
export async function zoneFileNames(zonesDir: string): Promise<string[]> {
  const files = await readdir(zonesDir).catch(() => [] as string[]);
  return files.filter((f) => f.endsWith('.zone')).map((f) => f.slice(0, -'.zone'.length)).filter(isZoneName);
}

/** Paths of the files knotd uses under `dir`. */
export function knotPaths(dir: string): { config: string; rundir: string; db: string; socket: string } {
  const rundir = join(dir, 'run');
  return { config: join(dir, 'knot.conf'), rundir, db: join(dir, 'db'), socket: join(rundir, 'knot.sock') };
}

export interface KnotConfigInput {
  dir: string;
  zonesDir: string;
  /** `ip:port` */
  listen: string;
  /** Secondaries (`ip:port`): they get NOTIFY and may transfer every zone. */
  notify: string[];
  zones: ZoneConfig[];
  /** Signs NOTIFY and is required on transfers (`--tsig-key`). */
  tsig?: TsigKey | null;
  /** Standing by: no zone at all (`zones` is then ignored). */
  idle?: boolean;
}

/** A TSIG key as operators share it between primary and secondaries. */
export interface TsigKey {
  name: string;
  /** `hmac-sha256`, ... (knotd's names, which are BIND's). */
  algorithm: string;
  /** Base64. */
  secret: string;
}

const TSIG_ALGORITHMS = ['hmac-md5', 'hmac-sha1', 'hmac-sha224', 'hmac-sha256', 'hmac-sha384', 'hmac-sha512'];

/**
 * Reads a TSIG key file in either form operators have at hand: BIND's (`tsig-keygen NAME` writes
 * `key "NAME" { algorithm hmac-sha256; secret "BASE64"; };`) or Knot's (`keymgr -t NAME`: a `key:` section with
 * `id`, `algorithm` and `secret`). Throws with a message that names what is wrong, never the secret.
 */
export function parseTsigKey(text: string): TsigKey {
  const bind = /key\s+"?([A-Za-z0-9._-]+)"?\s*\{([^}]*)\}/.exec(text);
  const field = (body: string, name: string): string | undefined =>
    new RegExp(`(?:^|[\\s;{-])${name}\\s*[:\\s]\\s*"?([A-Za-z0-9+/=._-]+)"?`, 'm').exec(body)?.[1];
  const key = bind
    ? { name: bind[1], algorithm: field(bind[2]!, 'algorithm'), secret: field(bind[2]!, 'secret') }
    : { name: field(text, 'id'), algorithm: field(text, 'algorithm'), secret: field(text, 'secret') };
  if (!key.name || !/^[A-Za-z0-9]([A-Za-z0-9._-]{0,62})$/.test(key.name)) throw new Error('the TSIG key file has no key name (expected BIND\'s `key "NAME" { ... };` or Knot\'s `key:` section)');
  const algorithm = key.algorithm?.toLowerCase();
  if (!algorithm || !TSIG_ALGORITHMS.includes(algorithm)) throw new Error(`the TSIG key ${key.name} has no supported algorithm (one of ${TSIG_ALGORITHMS.join(', ')})`);
  if (!key.secret || !/^[A-Za-z0-9+/]+={0,2}$/.test(key.secret) || Buffer.from(key.secret, 'base64').length < 16) {
    throw new Error(`the TSIG key ${key.name} has no base64 secret of at least 16 bytes`);
  }
  return { name: key.name, algorithm, secret: key.secret };
}

const quoted = (path: string): string => {
  if (/["\\\n]/.test(path)) throw new Error(`path ${JSON.stringify(path)} cannot be written to knot.conf`);
  return `"${path}"`;
};

const knotAddress = ({ host, port }: { host: string; port: number }): string => `${host}@${port}`;

/**
 * knotd's whole configuration. Zones are sorted so that the same zone set always renders the same text.
 * A zone whose name breaks the rule is left out, so that no one zone can keep knotd from starting.
 * - `zonefile-sync: -1`: knotd never writes into our zone files; ours are the only writer.
 * - `zonefile-load: difference` + `journal-content: changes`: a reload applies the difference between the
 *   served zone and the new file, which knotd journals: secondaries get a minimal IXFR, and a signed zone has
 *   only the changed rrsets signed again. (`whole` replaced the zone: signed, it journaled a bogus difference
 *   that broke secondaries, and re-signed every rrset on each change.) At start, with nothing served yet, knotd
 *   loads the file whole and applies the journal's changes that follow its serial, so a change committed
 *   before its file was written is not lost when knotd alone restarts.
 * - The log: zones and the server at info, control at warning. At info knotd logs every control command it
 *   receives, a line per rrset of a change, which it writes and this process reads and parses while the change is
 *   on its way to being served; its refusals are errors, logged all the same.
 * - `journal-db-mode: asynchronous`: knotd does not wait for the journal to reach the disk, which took one or
 *   more fsyncs per change on the serving path. A knotd that crashes loses nothing (the journal lives in the
 *   page cache); a machine that crashes may lose the journal's last changes or tear it, which the adapter
 *   handles by dropping a journal knotd was writing when the machine went down (knot.ts). The zone files and
 *   the store are the truth either way: the zone reconciler renders and checks every zone at start.
 * - `serial-policy: increment`: knotd leaves our serials alone; only when it signs (signed zones) does it
 *   add one to the serial it serves.
 * - The catalog zone (RFC 9432) is one of `zones`, written by the catalog reconciler like any other: knotd's own
 *   (`catalog-role: generate`) labels each member by the time it joined that knotd, which a new leader's knotd
 *   changes for every member (reconcilers/zones/catalog.ts).
 * - With a TSIG key, NOTIFY is signed and a transfer needs the key as well as a secondary's address.
 * - Standing by (`idle`), knotd only holds its address and answers REFUSED: an empty catalog served from a
 *   follower would make a secondary drop every zone.
 */
export function renderKnotConfig(input: KnotConfigInput): string {
  const paths = knotPaths(input.dir);
  const secondaries = input.notify.map((address) => parseHostPort(address));
  const tsig = input.tsig ?? null;
  const lines = [
    '# Generated by hostplane on every change of the zone set; edits are overwritten.',
    'server:',
    `    rundir: ${quoted(paths.rundir)}`,
    // Port 0 only where the adapter checks a configuration before its start() has picked the port it writes.
    `    listen: ${knotAddress(parseHostPort(input.listen, true))}`,
    'log:',
    '  - target: stderr',
    '    server: info',
    '    zone: info',
    '    control: warning',
    'database:',
    `    storage: ${quoted(paths.db)}`,
    '    journal-db-mode: asynchronous',
    'control:',
    `    listen: ${quoted(paths.socket)}`,
  ];
  if (input.idle) return `${lines.join('\n')}\n`;
  if (tsig) lines.push('key:', `  - id: ${tsig.name}.`, `    algorithm: ${tsig.algorithm}`, `    secret: ${tsig.secret}`);
  const keyLine = tsig ? [`    key: ${tsig.name}.`] : [];
  if (secondaries.length > 0) {
    lines.push('remote:');
    secondaries.forEach((s, i) => lines.push(`  - id: secondary${i + 1}`, `    address: ${knotAddress(s)}`, ...keyLine));
    lines.push(
      'acl:',
      '  - id: secondaries',
      `    address: [${[...new Set(secondaries.map((s) => s.host))].join(', ')}]`,
      ...keyLine,
      '    action: transfer',
    );
  }
  lines.push(
    'policy:',
    `  - id: ${POLICY_ID}`,
    '    algorithm: ecdsap256sha256',
    `  - id: ${DS_DELETE_POLICY_ID}`,
    '    algorithm: ecdsap256sha256',
    '    cds-cdnskey-publish: delete-dnssec',
  );
  const toSecondaries = secondaries.length > 0
    ? [`    notify: [${secondaries.map((_, i) => `secondary${i + 1}`).join(', ')}]`, '    acl: [secondaries]']
    : [];
  lines.push(
    'template:',
    '  - id: default',
    `    storage: ${quoted(input.zonesDir)}`,
    '    file: "%s.zone"',
    '    zonefile-sync: -1',
    '    zonefile-load: difference',
    '    journal-content: changes',
    '    serial-policy: increment',
    ...toSecondaries,
  );
  const zones = input.zones.filter((z) => isZoneName(z.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (zones.length > 0) lines.push('zone:');
  for (const z of zones) {
    lines.push(`  - domain: ${zoneFqdn(z.name)}`);
    const signing = signingOf(z);
    if (signing !== 'off') lines.push('    dnssec-signing: on', `    dnssec-policy: ${policyOf(signing)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The zones of a configuration {@link renderKnotConfig} wrote, with their signing: what knotd last accepted. */
export function configuredZones(config: string): Map<string, Signing> {
  const zones = new Map<string, Signing>();
  let current: string | null = null;
  for (const line of config.slice(config.indexOf('\nzone:\n') + 1).split('\n')) {
    const domain = /^ {2}- domain: (\S+)\.$/.exec(line);
    if (domain) zones.set((current = domain[1]!), 'off');
    else if (current && line === `    dnssec-policy: ${POLICY_ID}`) zones.set(current, 'on');
    else if (current && line === `    dnssec-policy: ${DS_DELETE_POLICY_ID}`) zones.set(current, 'delete-ds');
  }
  return zones;
}
