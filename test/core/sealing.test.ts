/** Sealing of secret values (ARCHITECTURE.md, issue 2 part 6): AES-256-GCM, key id with each value, the
 * context as additional authenticated data, a 0600 key file, rotation, and seal counts never reused. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bundleContext, checkSealingKey, defaultKeyPath, KEY_FILE, LEGACY_KEY_FILE, openSealer, purchaseContext, replicaToken, secretContext, type Sealer,
} from '../../core/sealing';
import { clientSecretName } from '../../rules/oauth-providers';
import { createOrg, registerNode } from '../../store/accounts';
import { setAuthProvider } from '../../store/auth';
import type { Store } from '../../store/db';
import { reservePurchase } from '../../store/domains';
import { storeBundle } from '../../store/nodes';
import { createProject } from '../../store/projects';
import { setSecret } from '../../store/secrets';
import type { SealedValue } from '../../store/sealed';
import { openTestStore } from '../helpers/store';

const dirs: string[] = [];
const newDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hostplane-seal-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const keyAt = (dir: string): string => join(dir, KEY_FILE);
const newKeyFile = (): string => keyAt(newDir());

interface KeyFile { current: string; keys: Record<string, { key: string; reserved: number }> }
const keyFile = (dir: string): KeyFile => JSON.parse(readFileSync(keyAt(dir), 'utf8')) as KeyFile;
const keyIdOf = (sealed: string): string => sealed.split('.')[1]!;

type SealedKind = SealedValue['kind'];
/** Every kind of value the store seals: the check must open each under its own context. */
const SEALED_KINDS: SealedKind[] = ['secret', 'authProvider', 'bundle', 'purchase'];

/** Flips one bit of the i-th character's byte of the base64url part `part` of a sealed value. */
function tamper(sealed: string, part: 2 | 3, at: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part]!, 'base64url');
  const i = at < 0 ? bytes.length + at : at;
  bytes[i] = bytes[i]! ^ 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('seal and open', () => {
  it.each([
    ['ascii', 'postgres://user:pw@db:5432/app'],
    ['empty', ''],
    ['unicode', 'пароль — 密码 — 🔑'],
    ['64 KiB', 'x'.repeat(65_536)],
  ])('a %s value round-trips', (_label, value) => {
    const s = openSealer(newKeyFile());
    expect(s.open('acme/blog/DB_URL', s.seal('acme/blog/DB_URL', value))).toBe(value);
  });

  it('the sealed form names the key and hides the value; two seals of one value differ', () => {
    const s = openSealer(newKeyFile());
    const a = s.seal('acme/blog/X', 'the-plain-value');
    const b = s.seal('acme/blog/X', 'the-plain-value');
    expect(a).toMatch(/^v1\.k1\.[\w-]+\.[\w-]+$/);
    expect(keyIdOf(a)).toBe(s.currentKeyId);
    expect(a).not.toContain('the-plain-value');
    expect(a).not.toBe(b);
    // 12-byte nonce, ciphertext of the value's length plus a 16-byte tag.
    expect(Buffer.from(a.split('.')[2]!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(a.split('.')[3]!, 'base64url')).toHaveLength('the-plain-value'.length + 16);
  });

  it.each(['acme/blog/Y', 'acme/blog2/X', 'globex/blog/X', 'acme/blog/X ', 'ACME/blog/X', ''])('opening under another context (%j) fails', (ctx) => {
    const s = openSealer(newKeyFile());
    const sealed = s.seal('acme/blog/X', 'v');
    expect(() => s.open(ctx, sealed)).toThrow();
  });

  it.each([
    ['first ciphertext byte', 3, 0],
    ['last tag byte', 3, -1],
    ['first tag byte', 3, -16],
    ['nonce', 2, 0],
  ] as const)('a tampered %s fails to open', (_label, part, at) => {
    const s = openSealer(newKeyFile());
    const sealed = s.seal('acme/blog/X', 'some secret value');
    expect(() => s.open('acme/blog/X', tamper(sealed, part, at))).toThrow();
  });

  it.each([
    ['truncated', (x: string) => x.slice(0, -4)],
    ['unknown key id', (x: string) => x.replace('.k1.', '.k9.')],
    ['unknown version', (x: string) => x.replace(/^v1\./, 'v2.')],
    ['garbage', () => 'not-a-sealed-value'],
    ['empty', () => ''],
  ] as const)('a %s sealed value fails to open', (_label, mangle) => {
    const s = openSealer(newKeyFile());
    expect(() => s.open('acme/blog/X', mangle(s.seal('acme/blog/X', 'value')))).toThrow();
  });

  it('another data dir\'s key cannot open the value', () => {
    const sealed = openSealer(newKeyFile()).seal('acme/blog/X', 'v');
    expect(() => openSealer(newKeyFile()).open('acme/blog/X', sealed)).toThrow();
  });
});

describe('the key file', () => {
  it('is created on first open with mode 0600 and a 256-bit key', () => {
    const dir = newDir();
    openSealer(keyAt(dir));
    expect(statSync(keyAt(dir)).mode & 0o777).toBe(0o600);
    const f = keyFile(dir);
    expect(f.current).toBe('k1');
    expect(Buffer.from(f.keys.k1!.key, 'base64')).toHaveLength(32);
  });

  it('keeps mode 0600 after the writes of sealing and rotation, even under a permissive umask', () => {
    const dir = newDir();
    const old = process.umask(0o000);
    try {
      const s = openSealer(keyAt(dir), { rotateAfter: 1 });
      s.seal('c', 'v');
      s.seal('c', 'v');
    } finally {
      process.umask(old);
    }
    expect(Object.keys(keyFile(dir).keys).length).toBeGreaterThan(1);
    expect(statSync(keyAt(dir)).mode & 0o777).toBe(0o600);
  });

  it('a reopened sealer (a restart) uses the same key', () => {
    const dir = newDir();
    const sealed = openSealer(keyAt(dir)).seal('acme/blog/X', 'persisted');
    expect(openSealer(keyAt(dir)).open('acme/blog/X', sealed)).toBe('persisted');
  });

  it('an existing key file is not replaced when it is readable', () => {
    const dir = newDir();
    openSealer(keyAt(dir));
    const key = keyFile(dir).keys.k1!.key;
    openSealer(keyAt(dir));
    expect(keyFile(dir).keys.k1!.key).toBe(key);
  });
});

describe('rotation and seal counting', () => {
  it('after rotateAfter seals a new key id takes over, and values under the old key still open', () => {
    const dir = newDir();
    const s = openSealer(keyAt(dir), { rotateAfter: 3 });
    const first = [1, 2, 3].map((i) => s.seal(`ctx/${i}`, `v${i}`));
    expect(first.map(keyIdOf)).toEqual(['k1', 'k1', 'k1']);
    const fourth = s.seal('ctx/4', 'v4');
    expect(keyIdOf(fourth)).not.toBe('k1');
    expect(s.currentKeyId).toBe(keyIdOf(fourth));
    first.forEach((sealed, i) => expect(s.open(`ctx/${i + 1}`, sealed)).toBe(`v${i + 1}`));
    expect(s.open('ctx/4', fourth)).toBe('v4');
    const f = keyFile(dir);
    expect(f.current).toBe(keyIdOf(fourth));
    expect(Object.keys(f.keys).sort()).toEqual(['k1', keyIdOf(fourth)].sort());
    // The new key also takes three seals (the fourth, fifth and sixth); the seventh rotates again.
    const next = [5, 6].map((i) => s.seal(`ctx/${i}`, 'v'));
    expect(next.map(keyIdOf)).toEqual([keyIdOf(fourth), keyIdOf(fourth)]);
    const seventh = s.seal('ctx/7', 'v');
    expect([keyIdOf(seventh)]).not.toContain(keyIdOf(fourth));
    expect(keyIdOf(seventh)).not.toBe('k1');
  });

  it('a reopened sealer can open values of every older key', () => {
    const dir = newDir();
    const s = openSealer(keyAt(dir), { rotateAfter: 1 });
    const sealed = [1, 2, 3].map((i) => s.seal(`c/${i}`, `v${i}`));
    expect(new Set(sealed.map(keyIdOf)).size).toBe(3);
    const again = openSealer(keyAt(dir), { rotateAfter: 1 });
    sealed.forEach((x, i) => expect(again.open(`c/${i + 1}`, x)).toBe(`v${i + 1}`));
  });

  it('seal counts are reserved in the key file before use', () => {
    const dir = newDir();
    const s = openSealer(keyAt(dir));
    expect(keyFile(dir).keys.k1!.reserved).toBe(0);
    s.seal('c', 'v');
    expect(keyFile(dir).keys.k1!.reserved).toBeGreaterThanOrEqual(1);
  });

  it('a restarted sealer never reuses the reserved count: `reserved` rises with every new process', () => {
    const dir = newDir();
    const reservations: number[] = [];
    for (let restart = 0; restart < 3; restart++) {
      const s = openSealer(keyAt(dir)); // a new process: the previous one's unused reservation is skipped, never reused
      s.seal('c', 'v');
      s.seal('c', 'v');
      reservations.push(keyFile(dir).keys.k1!.reserved);
    }
    expect(keyFile(dir).current).toBe('k1');
    expect(reservations[1]!).toBeGreaterThan(reservations[0]!);
    expect(reservations[2]!).toBeGreaterThan(reservations[1]!);
  });

  it('a process that crashed mid-block still counts: the next rotates at the limit without reusing that block', () => {
    const dir = newDir();
    const limit = 100_000;
    const a = openSealer(keyAt(dir), { rotateAfter: limit });
    a.seal('c', 'v'); // reserves a block; the process "crashes" here
    const afterA = keyFile(dir).keys.k1!.reserved;
    const b = openSealer(keyAt(dir), { rotateAfter: limit });
    b.seal('c', 'v');
    const afterB = keyFile(dir).keys.k1!.reserved;
    expect(afterB).toBeGreaterThan(afterA);
    // The two reserved blocks together pass the limit: a third process starts past it and must rotate.
    const c = openSealer(keyAt(dir), { rotateAfter: limit });
    expect(keyIdOf(c.seal('c', 'v'))).not.toBe('k1');
  });

  it('rotation never overwrites a key whose id survives a removed older key', () => {
    const dir = newDir();
    const s = openSealer(keyAt(dir), { rotateAfter: 1 });
    s.seal('c', 'v'); // k1
    s.seal('c', 'v'); // k2
    const onK3 = s.seal('c/3', 'kept'); // k3
    expect(keyIdOf(onK3)).toBe('k3');
    // An operator retires k2 by hand once nothing uses it.
    const f = keyFile(dir);
    delete f.keys.k2;
    writeFileSync(keyAt(dir), JSON.stringify(f));
    const again = openSealer(keyAt(dir), { rotateAfter: 1 });
    const fresh = again.seal('c', 'v');
    expect(keyIdOf(fresh)).not.toBe('k3');
    expect(again.open('c/3', onK3)).toBe('kept');
  });

  it('a key file whose current key is missing is refused rather than silently replaced', () => {
    const dir = newDir();
    openSealer(keyAt(dir));
    const f = keyFile(dir);
    writeFileSync(keyAt(dir), JSON.stringify({ ...f, current: 'k7' }));
    expect(() => openSealer(keyAt(dir)).seal('c', 'v')).toThrow();
  });
});

describe('the key file\'s path', () => {
  it('is DATA/sealing.key by default, created with mode 0600', () => {
    const dir = newDir();
    expect(defaultKeyPath(dir)).toBe(join(dir, 'sealing.key'));
    openSealer(defaultKeyPath(dir));
    expect(statSync(join(dir, 'sealing.key')).mode & 0o777).toBe(0o600);
  });

  it('is the older sealing-keys.json, where it is, in a data dir that has only that one', () => {
    const dir = newDir();
    const sealed = openSealer(join(dir, LEGACY_KEY_FILE)).seal('acme/blog/X', 'kept');
    expect(defaultKeyPath(dir)).toBe(join(dir, LEGACY_KEY_FILE));
    expect(openSealer(defaultKeyPath(dir)).open('acme/blog/X', sealed)).toBe('kept');
    expect(existsSync(keyAt(dir))).toBe(false);
  });

  it('is sealing.key once that one exists, even beside an older file', () => {
    const dir = newDir();
    openSealer(join(dir, LEGACY_KEY_FILE));
    openSealer(keyAt(dir));
    expect(defaultKeyPath(dir)).toBe(keyAt(dir));
  });
});

describe('checkSealingKey: the key file must open the store\'s sealed values', () => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });

  /** A store with the org `acme` and its project `blog`. */
  async function newStore(): Promise<{ s: Store; orgId: number; projectId: number }> {
    const s = await openTestStore();
    stores.push(s);
    const org = await createOrg(s, 'acme', 'free');
    const p = await createProject(s, { orgId: org.id, plan: 'free', limit: 3, name: 'blog', database: false, hostname: 'blog.hostplane.test', actor: 't' });
    return { s, orgId: org.id, projectId: p.id };
  }

  /** Stores one value of `kind`, sealed by `sealer` under the context the service seals that kind with. */
  async function storeSealed(at: { s: Store; orgId: number; projectId: number }, kind: SealedKind, sealer: Sealer, suffix = ''): Promise<void> {
    const { s, orgId, projectId } = at;
    const write = { orgId, projectId, projectName: 'blog', actor: 't' };
    switch (kind) {
      case 'secret': {
        const name = `API_KEY${suffix}`;
        await setSecret(s, { ...write, name, sealed: sealer.seal(secretContext('acme', 'blog', name), 'v') });
        return;
      }
      case 'authProvider':
        await setAuthProvider(s, { ...write, provider: 'github', clientId: 'id', sealed: sealer.seal(secretContext('acme', 'blog', clientSecretName('github')), 'cs') });
        return;
      case 'bundle': {
        const node = `n${suffix}`;
        await registerNode(s, node);
        await storeBundle(s, node, () => ({ sealed: sealer.seal(bundleContext(node), '[]'), sections: {} }));
        return;
      }
      case 'purchase': {
        const name = `example${suffix}.test`;
        await reservePurchase(s, {
          orgId, name, years: 1, paymentMethod: 'pm_card', actor: 't', quota: { plan: 'free', limit: 50 },
          contactSealed: sealer.seal(purchaseContext(orgId, name), '{"email":"a@example.test"}'),
        });
      }
    }
  }

  /** The file's bytes and mtime: a refused start must leave both as they were. */
  const fileState = (path: string): { bytes: string; mtimeMs: number } => ({ bytes: readFileSync(path, 'utf8'), mtimeMs: statSync(path).mtimeMs });

  it('accepts a missing file while the store holds nothing sealed, and does not create it (openSealer does)', async () => {
    const { s } = await newStore();
    const path = newKeyFile();
    await checkSealingKey(s, path);
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a missing file, naming it, when the store holds a sealed value, and does not create it', async () => {
    const at = await newStore();
    await storeSealed(at, 'secret', openSealer(newKeyFile()));
    const path = newKeyFile();
    await expect(checkSealingKey(at.s, path)).rejects.toMatchObject({ code: 'sealing_key_mismatch', message: expect.stringContaining(`sealing key file ${path} does not open`) });
    expect(existsSync(path)).toBe(false);
  });

  it.each(SEALED_KINDS)('opens a stored %s value with the right file and refuses another installation\'s, writing nothing', async (kind) => {
    const at = await newStore();
    const right = newKeyFile();
    await storeSealed(at, kind, openSealer(right));
    await checkSealingKey(at.s, right);
    // Another installation's file: a key of the same id (k1), other key bytes.
    const wrong = newKeyFile();
    openSealer(wrong);
    const before = fileState(wrong);
    await expect(checkSealingKey(at.s, wrong)).rejects.toThrow(new RegExp(`sealing key file ${wrong} does not open this store's sealed data \\(its key k1 does not open the ${kind} values`));
    expect(fileState(wrong)).toEqual(before);
  });

  /** A store holding one value of each of `kinds`, in order, each sealed with a key of its own (k1, k2, ...), and
   * the data dir of the ring that sealed them. */
  async function storeOverRotations(kinds: SealedKind[]): Promise<{ s: Store; dir: string }> {
    const at = await newStore();
    const dir = newDir();
    const sealer = openSealer(keyAt(dir), { rotateAfter: 1 });
    for (const [i, kind] of kinds.entries()) await storeSealed(at, kind, sealer, String(i + 1));
    expect(keyFile(dir).current).toBe(`k${kinds.length}`);
    return { s: at.s, dir };
  }

  it('opens values sealed before a rotation: every key id of the ring is tried', async () => {
    const { s, dir } = await storeOverRotations(['secret', 'bundle', 'secret']);
    await checkSealingKey(s, keyAt(dir));
  });

  it('refuses a ring that lacks a key id the store\'s values were sealed with', async () => {
    const { s, dir } = await storeOverRotations(['secret', 'secret']);
    const f = keyFile(dir);
    delete f.keys.k1;
    writeFileSync(keyAt(dir), JSON.stringify(f));
    await expect(checkSealingKey(s, keyAt(dir))).rejects.toThrow(/holds values sealed with key k1, which the file does not hold/);
  });

  it('refuses a ring whose older key is another installation\'s though its current key opens', async () => {
    const { s, dir } = await storeOverRotations(['secret', 'secret']);
    const f = keyFile(dir);
    f.keys.k1!.key = randomBytes(32).toString('base64');
    writeFileSync(keyAt(dir), JSON.stringify(f));
    await expect(checkSealingKey(s, keyAt(dir))).rejects.toThrow(/its key k1 does not open/);
  });

  it.each([
    ['not JSON', 'not json'],
    ['JSON of another shape', '{"key": "abc"}'],
  ])('refuses a file that is %s, naming it', async (_label, text) => {
    const { s } = await newStore();
    const path = newKeyFile();
    writeFileSync(path, text);
    await expect(checkSealingKey(s, path)).rejects.toMatchObject({ code: 'sealing_key_unreadable', message: expect.stringContaining(path) });
  });

  // JSON.parse's message quotes the text around the fault: key material of a damaged file, or of another key format.
  it('quotes nothing of a file it cannot parse', async () => {
    const { s } = await newStore();
    const path = newKeyFile();
    writeFileSync(path, 'Kq9vZ2xT8rUe4mWb-private');
    const e = await checkSealingKey(s, path).catch((x: unknown) => x);
    expect((e as Error).message).toContain(path);
    expect((e as Error).message).not.toMatch(/Kq9v|private/);
  });
});

describe('replicaToken: the core token of the processes of one installation', () => {
  it('is the same from every copy of the key file, survives a rotation in one copy, differs between installations and is no key', () => {
    const path = keyAt(newDir());
    openSealer(path);
    const copy = join(newDir(), 'sealing.key');
    writeFileSync(copy, readFileSync(path));
    const token = replicaToken(path);
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(replicaToken(copy)).toBe(token);
    const rotated = openSealer(copy, { rotateAfter: 1 });
    rotated.seal('a/b/C', 'x');
    rotated.seal('a/b/C', 'y');
    expect(rotated.currentKeyId).not.toBe('k1');
    expect(replicaToken(copy)).toBe(token);
    const other = keyAt(newDir());
    openSealer(other);
    expect(replicaToken(other)).not.toBe(token);
    expect(readFileSync(path, 'utf8')).not.toContain(token);
  });
});
