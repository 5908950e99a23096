/**
 * Hashes of deployment access (spec 4.4): the shared password as a slow hash, scrypt at the current
 * recommended cost (N = 2^17, r = 8, p = 1: OWASP's password storage guidance), and the bypass secret, 32
 * random bytes, as its SHA-256 (a secret of that entropy needs no slow hash). The control plane writes them,
 * the node verifies them; neither value is kept.
 *
 * Password hash format (PHC string form): `$scrypt$ln=17,r=8,p=1$<salt, base64>$<key, base64>`.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const SCRYPT = { ln: 17, r: 8, p: 1, keyLen: 32, saltLen: 16 } as const;

/** scrypt needs 128 * N * r bytes (128 MiB at N = 2^17); Node's default cap is 32 MiB, so the cap is raised to
 * twice the need, and no more. */
const maxmemFor = (ln: number, r: number): number => 2 * 128 * 2 ** ln * r;

function scryptAsync(password: string, salt: Buffer, keyLen: number, o: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLen, o, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SCRYPT.saltLen);
  const key = await scryptAsync(password, salt, SCRYPT.keyLen, { N: 2 ** SCRYPT.ln, r: SCRYPT.r, p: SCRYPT.p, maxmem: maxmemFor(SCRYPT.ln, SCRYPT.r) });
  return `$scrypt$ln=${SCRYPT.ln},r=${SCRYPT.r},p=${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/** Whether `password` matches `hash` (constant-time compare of the derived keys). A malformed hash or one of a
 * cost above today's is false, never an exception: a hash is data from the bundle. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const m = PHC.exec(hash);
  if (!m) return false;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 10 || ln > SCRYPT.ln || r < 1 || r > SCRYPT.r || p < 1 || p > SCRYPT.p) return false;
  const salt = Buffer.from(m[4]!, 'base64');
  const want = Buffer.from(m[5]!, 'base64');
  if (want.length < 16 || want.length > 64) return false;
  const got = await scryptAsync(password, salt, want.length, { N: 2 ** ln, r, p, maxmem: maxmemFor(ln, r) });
  return timingSafeEqual(got, want);
}

/** The bypass secret: 32 random bytes, base64url (43 characters). */
export const newBypassSecret = (): string => randomBytes(32).toString('base64url');

/** What is stored of a bypass secret and compared at the node: its SHA-256, hex. */
export const bypassHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');
