/**
 * Sealing of secret values: AES-256-GCM with a random 96-bit nonce, the key id stored with each value so
 * keys can rotate, and the value's context (`org/project/name`) as additional authenticated data, so a
 * sealed value copied to another row fails to open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { badRequest } from '../lib/errors';
import { writeFileAtomic } from '../lib/files';
import { clientSecretName } from '../rules/oauth-providers';
import type { Store } from '../store/db';
import { sealedSamples, type SealedValue } from '../store/sealed';

interface KeyFile {
  current: string;
  keys: Record<string, { key: string; reserved: number }>;
}

export interface Sealer {
  seal(context: string, plaintext: string): string;
  open(context: string, sealed: string): string;
  readonly currentKeyId: string;
}

/** Random nonces stay safe for about 2^32 seals per key; rotate long before that. */
export const ROTATE_AFTER = 2 ** 31;
/** Seal counts are reserved in blocks so the key file is written once per block, not once per seal;
 * after a crash the unused rest of a block is skipped, never reused. */
const BLOCK = 65_536;

/** The key file's name in the data dir when `--sealing-key` is not given. */
export const KEY_FILE = 'sealing.key';
/** Where installations made before `--sealing-key` keep their keys (defaultKeyPath). */
export const LEGACY_KEY_FILE = 'sealing-keys.json';

/** The length in bytes of a sealed value's plaintext, without opening it: AES-GCM adds only its 16-byte tag. */
export function sealedBytes(sealed: string): number {
  const body = sealed.split('.')[3] ?? '';
  return Math.max(0, Math.floor((body.length * 3) / 4) - 16);
}

/** The sealing context of a project's secret value: the API seals with it, the core opens bundles with it, and a
 * value copied to another project or name does not open. */
export const secretContext = (org: string, project: string, name: string): string => `${org}/${project}/${name}`;

/** The sealing context of a node's bundle: a bundle copied to another node's row does not open. */
export const bundleContext = (nodeId: string): string => `bundle/${nodeId}`;

/** The sealing context of a zone's DNSSEC private key (store/dnssec-keys.ts): a key copied to another zone, another
 * lifetime of the zone or another key's row does not open. */
export const dnssecKeyContext = (zone: string, uid: string, keyId: string): string => `dnssec/${zone}/${uid}/${keyId}`;

/** The sealing context of an open domain purchase's registrant contact (sagas/domains.ts). */
export const purchaseContext = (orgId: number, name: string): string => `purchase/${orgId}/${name}`;

/** The context a sealed value of the store was sealed under: what it is and which row holds it. */
function contextOf(v: SealedValue): string {
  switch (v.kind) {
    case 'secret': return secretContext(v.org, v.project, v.name);
    case 'authProvider': return secretContext(v.org, v.project, clientSecretName(v.provider));
    case 'bundle': return bundleContext(v.nodeId);
    case 'purchase': return purchaseContext(v.orgId, v.name);
  }
}

const keyIdOf = (sealed: string): string => sealed.split('.')[1] ?? '';

/** The key file of data dir `dataDir` when `--sealing-key` is not given: `sealing.key`, except in a data dir that
 * has only the file of an installation made before the flag, which is used where it is. Renamed, a rollback to
 * the older version would not find its key and would seal new values with a fresh one. */
export function defaultKeyPath(dataDir: string): string {
  const path = join(dataDir, KEY_FILE);
  const legacy = join(dataDir, LEGACY_KEY_FILE);
  return !existsSync(path) && existsSync(legacy) ? legacy : path;
}

/** The key ring in `path`, null when there is no such file; a file that is not one is refused, naming it. */
function readKeyRing(path: string): KeyFile | null {
  if (!existsSync(path)) return null;
  let file: unknown;
  try {
    file = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    // Not JSON.parse's message: it quotes the file's text, which is key material.
    const why = e instanceof SyntaxError ? 'it is not JSON' : (e as Error).message;
    throw badRequest(`the sealing key file ${path} cannot be read as a key ring: ${why}`, undefined, 'sealing_key_unreadable');
  }
  const ring = file as Partial<KeyFile> | null;
  if (typeof ring?.current !== 'string' || typeof ring.keys !== 'object' || ring.keys === null) {
    throw badRequest(`the sealing key file ${path} is not a key ring ({"current": ID, "keys": {ID: {"key": BASE64, ...}}})`, undefined, 'sealing_key_unreadable');
  }
  return ring as KeyFile;
}

function keyOf(file: KeyFile, id: string): Buffer {
  const k = file.keys[id];
  if (!k) throw new Error(`sealing key ${id} is not in the key file`);
  return Buffer.from(k.key, 'base64');
}

/** Opens `sealed` with the key of the ring its key id names. */
function openWith(file: KeyFile, context: string, sealed: string): string {
  const [version, id, nonce, body] = sealed.split('.');
  if (version !== 'v1' || !id || !nonce || !body) throw new Error('not a sealed value');
  const raw = Buffer.from(body, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(file, id), Buffer.from(nonce, 'base64url'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]).toString('utf8');
}

/**
 * Refuses a key file that does not open the store's sealed values (CONTRACT.md "Several machines"), reading
 * only, so that a process given the wrong file stops before it writes anything: the file missing while the
 * store holds sealed values (then it must not be created: a fresh key would seal new values no other process
 * opens), a value sealed with a key id the file lacks, or a value per key id of the file that its key does not
 * open (a key of the same id from another installation). Every key id is tried, not only the current one: values
 * sealed before a rotation must open too. The caller creates or loads the file (openSealer) once this passed.
 */
export async function checkSealingKey(store: Store, path: string): Promise<void> {
  const ring = readKeyRing(path);
  const refuse = (why: string) => badRequest(
    `the sealing key file ${path} does not open this store's sealed data (${why}): give every process of the installation the same --sealing-key file`,
    undefined, 'sealing_key_mismatch',
  );
  const ids = Object.keys(ring?.keys ?? {});
  const [lacking] = await sealedSamples(store, { sealedWithNone: ids });
  if (lacking) throw refuse(ring ? `the store holds values sealed with key ${keyIdOf(lacking.sealed)}, which the file does not hold` : 'the file does not exist');
  for (const id of ids) {
    for (const v of await sealedSamples(store, { sealedWith: id })) {
      try {
        openWith(ring!, contextOf(v), v.sealed);
      } catch {
        throw refuse(`its key ${id} does not open the ${v.kind} values sealed with a key of that id`);
      }
    }
  }
}

/** Loads the key file at `path`, creating it (mode 0600) with a fresh key when there is none. A process checks
 * the file against its store first (checkSealingKey). */
export function openSealer(path: string, opts: { rotateAfter?: number } = {}): Sealer {
  const rotateAfter = opts.rotateAfter ?? ROTATE_AFTER;
  const file: KeyFile = readKeyRing(path) ?? { current: '', keys: {} };
  const save = (): void => writeFileAtomic(path, JSON.stringify(file, null, 2), 0o600);
  const addKey = (): void => {
    // Never an id already in the file (a retired key removed by hand leaves a gap in k1, k2, ...).
    let n = Object.keys(file.keys).length + 1;
    while (file.keys[`k${n}`]) n += 1;
    const id = `k${n}`;
    file.keys[id] = { key: randomBytes(32).toString('base64'), reserved: 0 };
    file.current = id;
  };
  if (!file.current) addKey();
  let used = file.keys[file.current]!.reserved;
  file.keys[file.current]!.reserved = used;
  save();

  const reserve = (): void => {
    if (used >= rotateAfter) {
      addKey();
      used = 0;
    }
    const cur = file.keys[file.current]!;
    if (used >= cur.reserved) {
      cur.reserved = used + BLOCK;
      save();
    }
    used += 1;
  };

  return {
    get currentKeyId() {
      return file.current;
    },
    seal(context, plaintext) {
      reserve();
      const id = file.current;
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyOf(file, id), nonce);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return ['v1', id, nonce.toString('base64url'), body.toString('base64url')].join('.');
    },
    open: (context, sealed) => openWith(file, context, sealed),
  };
}


/**
 * The core token the processes of one installation call each other with (core/replicas.ts): HKDF-SHA256 of the
 * first key of the ring at `path`, which every process holds, so no second secret has to be made, copied or
 * stored. The first key, not the current one: a rotation in one process's copy of the file adds a key and leaves
 * the first where it was, so the installation keeps one token. It opens nothing that is sealed (HKDF's output
 * tells nothing of its key), and a process given another installation's file is refused by the others.
 */
export function replicaToken(path: string): string {
  const ring = readKeyRing(path);
  const first = Object.keys(ring?.keys ?? {})[0];
  if (!ring || first === undefined) throw new Error(`the sealing key file ${path} holds no key`);
  return Buffer.from(hkdfSync('sha256', keyOf(ring, first), Buffer.alloc(0), 'hostplane replica core token v1', 32)).toString('base64url');
}
