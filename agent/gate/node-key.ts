/**
 * The node's own HMAC keys under its `--dir` (`access.key`: deployment access sessions and CSRF tokens;
 * `signin.key`: sign-in's login cookies): 32 random bytes, base64, made with mode 0600 at the first start. Whoever
 * reads one forges what it signs for every host of the node, so a key copied in from another node (several nodes
 * behind one balancer share them) is made 0600 and root's again, and a link is refused.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../lib/files';

/** The key in `path`, made when there is none; `ends` says what a new one ends, for the error message. */
export function loadNodeKey(path: string, ends: string): Buffer {
  if (!existsSync(path)) writeFileAtomic(path, `${randomBytes(32).toString('base64')}\n`, 0o600);
  const st = lstatSync(path);
  if (!st.isFile()) throw new Error(`${path} is not a regular file`);
  if ((st.mode & 0o077) !== 0) chmodSync(path, 0o600);
  if (process.getuid?.() === 0 && st.uid !== 0) chownSync(path, 0, 0);
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte key (base64): delete it to have a new one made (${ends})`);
  return key;
}
