/** The node's access sessions and limits: the key file, the cookie's MAC over everything it admits, the CSRF
 * token, what is taken out of the worker's Cookie header, and the slots of slow verifications. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Slots } from '../../../lib/slots';
import {
  accessKeyPath, checkCsrf, csrfToken, loadAccessKey, newCsrfNonce, signSession, verifySession, withoutAccessCookies, type SessionScope,
} from '../../../agent/gate/access-session';
import { cookieValue } from '../../../lib/http/cookies';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hostplane-access-key-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the access key', () => {
  it('is made once, mode 0600, and read back the same at the next start', () => {
    const dir = tempDir();
    const key = loadAccessKey(dir);
    expect(key).toHaveLength(32);
    expect(statSync(accessKeyPath(dir)).mode & 0o777).toBe(0o600);
    expect(loadAccessKey(dir).equals(key)).toBe(true);
  });

  it('makes a key file copied in with a readable mode 0600 again, and refuses a link', () => {
    const dir = tempDir();
    const key = randomBytes(32);
    writeFileSync(accessKeyPath(dir), `${key.toString('base64')}\n`, { mode: 0o644 });
    expect(loadAccessKey(dir).equals(key)).toBe(true);
    expect(statSync(accessKeyPath(dir)).mode & 0o777).toBe(0o600);
    const linked = tempDir();
    symlinkSync(accessKeyPath(dir), accessKeyPath(linked));
    expect(() => loadAccessKey(linked)).toThrow(/not a regular file/);
  });

  it('refuses a key file that does not hold 32 bytes, saying how to make a new one', () => {
    const dir = tempDir();
    writeFileSync(accessKeyPath(dir), 'c2hvcnQ=\n');
    expect(() => loadAccessKey(dir)).toThrow(/does not hold a 32-byte key.*delete it/);
  });
});

describe('session cookies', () => {
  const key = randomBytes(32);
  const scope: SessionScope = { host: 'blog.hostplane.test', project: 'acme/blog', mode: 'org', version: 4, members: 2 };
  const value = signSession(key, scope, 2000, 'ada@acme.test');

  it('admit the user for the scope they were made for until they expire', () => {
    expect(verifySession(key, value, scope, 1999)).toEqual({ user: 'ada@acme.test' });
    expect(verifySession(key, value, scope, 2000)).toBeNull();
  });

  it.each([
    ['another host', { host: 'www.customer.test' }],
    ['another project', { project: 'acme/shop' }],
    ['another mode', { mode: 'password' as const }],
    ['another policy version', { version: 5 }],
    ['another members version', { members: 3 }],
  ])('do not admit for %s', (_what, change) => {
    expect(verifySession(key, value, { ...scope, ...change }, 1000)).toBeNull();
  });

  it('do not verify under another key, nor with any field changed', () => {
    expect(verifySession(randomBytes(32), value, scope, 1000)).toBeNull();
    const parts = value.split('.');
    for (let i = 0; i < parts.length; i++) {
      const changed = [...parts];
      changed[i] = i === 4 ? Buffer.from('eve@acme.test').toString('base64url') : i === 3 ? '3000' : `${parts[i]}0`;
      expect(verifySession(key, changed.join('.'), scope, 1000), `field ${i}`).toBeNull();
    }
  });
});

describe('CSRF tokens', () => {
  const key = randomBytes(32);
  it('are bound to the nonce, the host and the key', () => {
    const nonce = newCsrfNonce();
    const token = csrfToken(key, 'a.test', nonce);
    expect(checkCsrf(key, 'a.test', nonce, token)).toBe(true);
    expect(checkCsrf(key, 'a.test', newCsrfNonce(), token)).toBe(false);
    expect(checkCsrf(key, 'b.test', nonce, token)).toBe(false);
    expect(checkCsrf(randomBytes(32), 'a.test', nonce, token)).toBe(false);
    expect(checkCsrf(key, 'a.test', null, token)).toBe(false);
    expect(checkCsrf(key, 'a.test', nonce, token.slice(1))).toBe(false);
  });
});

describe('the Cookie header', () => {
  it('gives the access cookie by its exact name', () => {
    expect(cookieValue('__Host-service-access-csrf=n; __Host-service-access=v', '__Host-service-access')).toBe('v');
    expect(cookieValue('__Host-service-access-csrf=n', '__Host-service-access')).toBeNull();
    expect(cookieValue(undefined, '__Host-service-access')).toBeNull();
  });

  it.each([
    ['a=1; b=2', 'a=1; b=2'],
    ['__Host-service-access=v', undefined],
    ['a=1;__Host-service-access=v; b=2', 'a=1; b=2'],
    ['__Host-service-access-csrf=n; __Host-service-access=v', undefined],
    ['__Host-service-access-mine=1; __Host-service-access=v', '__Host-service-access-mine=1'],
  ])('%j reaches the worker as %j', (header, kept) => {
    expect(withoutAccessCookies(header)).toBe(kept);
  });
});

describe('slots', () => {
  it('run at most size at once, queue up to queue, refuse past that at once, and hand a freed slot to the first waiting', async () => {
    const slots = new Slots(2, 1);
    const a = (await slots.acquire())!;
    const b = (await slots.acquire())!;
    const waiting = slots.acquire();
    expect(await slots.acquire()).toBeNull();
    expect(slots.load).toEqual({ running: 2, waiting: 1 });
    a();
    a();
    const c = (await waiting)!;
    expect(slots.load).toEqual({ running: 2, waiting: 0 });
    b();
    c();
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });
});
