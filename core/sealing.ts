/**
 * Sealing of secret values: AES-256-GCM with a random 96-bit nonce, the key id stored with each value so
 * keys can rotate, and the value's context (`org/project/name`) as additional authenticated data, so a
 * sealed value copied to another row fails to open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../lib/files';

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

export const KEY_FILE = 'sealing-keys.json';

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

/** Loads the key file from `dataDir`, creating it (mode 0600) with a fresh key on first start. */
export function openSealer(dataDir: string, opts: { rotateAfter?: number } = {}): Sealer {
  const path = join(dataDir, KEY_FILE);
  const rotateAfter = opts.rotateAfter ?? ROTATE_AFTER;
  const file: KeyFile = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as KeyFile) : { current: '', keys: {} };
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

  const keyOf = (id: string): Buffer => {
    const k = file.keys[id];
    if (!k) throw new Error(`sealing key ${id} is not in the key file`);
    return Buffer.from(k.key, 'base64');
  };

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
      const cipher = createCipheriv('aes-256-gcm', keyOf(id), nonce);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return ['v1', id, nonce.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(context, sealed) {
      const [version, id, nonce, body] = sealed.split('.');
      if (version !== 'v1' || !id || !nonce || !body) throw new Error('not a sealed value');
      const raw = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', keyOf(id), Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}
