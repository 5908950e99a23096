/**
 * The project database helper: the one process that opens a project's sign-in tables (store.ts). The agent starts
 * it per project (project-db.ts) as the project's worker user, with the database's path as its argument, and
 * talks to it in JSON lines over stdin and stdout:
 *
 * - first it answers `{"ready": true}` once the database is open and the tables exist, or `{"ready": false,
 *   "error"}` and exits;
 * - then for each request `{"id", "op", "args"}` one answer `{"id", "ok": true, "result"}` or `{"id", "ok":
 *   false, "error"}`, in order. Hashes and grant ids travel as hex.
 *
 * It exits when its stdin ends. What is in the file is the worker's (it can add triggers and views, hold locks or
 * replace the file): that is why this is not the agent, whose one event loop serves every project, and why it
 * runs as the worker, to whom following a link the worker planted gives nothing it could not read already.
 */
import { lstatSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { SignInStore, type ProviderUser, type SessionScope } from './store';

interface Scope { grant: string; host: string; sessionDays: number }

const scopeOf = (s: Scope): SessionScope => ({ grant: Buffer.from(s.grant, 'hex'), host: s.host, sessionDays: s.sessionDays });

/** The ops the agent asks for; each answers JSON. */
const OPS = {
  signIn: (db: SignInStore, a: { provider: string; who: ProviderUser; maxUsers: number; now: number }) => db.signIn(a.provider, a.who, a.maxUsers, a.now),
  createSession: (db: SignInStore, a: { tokenHash: string; userId: number; scope: Scope; maxUsers: number; now: number; replacing: string | null }) =>
    db.createSession({
      tokenHash: Buffer.from(a.tokenHash, 'hex'), userId: a.userId, scope: scopeOf(a.scope), maxUsers: a.maxUsers, now: a.now,
      replacing: a.replacing === null ? null : Buffer.from(a.replacing, 'hex'),
    }),
  session: (db: SignInStore, a: { tokenHash: string; scope: Scope; now: number }) => db.session(Buffer.from(a.tokenHash, 'hex'), scopeOf(a.scope), a.now),
  endSession: (db: SignInStore, a: { tokenHash: string; host: string }) => {
    db.endSession(Buffer.from(a.tokenHash, 'hex'), a.host);
    return null;
  },
  prune: (db: SignInStore, a: { scope: Omit<Scope, 'host'>; now: number }) => db.prune(scopeOf({ ...a.scope, host: '' }), a.now),
} as const;

const send = (v: unknown): void => void process.stdout.write(`${JSON.stringify(v)}\n`);

function open(path: string): SignInStore {
  const st = lstatSync(path);
  // The supervisor made a regular file owned by the worker: anything else (a link to another file, another
  // user's file) was put there, and is not opened.
  if (!st.isFile()) throw new Error('the project database is not a regular file');
  if (st.uid !== process.getuid!()) throw new Error('the project database is not owned by the project\'s user');
  return SignInStore.open(path);
}

let db: SignInStore;
try {
  db = open(process.argv[2]!);
} catch (e) {
  send({ ready: false, error: (e as Error).message });
  process.exit(1);
}
send({ ready: true });
createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on('line', (line) => {
    const { id, op, args } = JSON.parse(line) as { id: number; op: keyof typeof OPS; args: never };
    try {
      send({ id, ok: true, result: OPS[op](db, args) });
    } catch (e) {
      send({ id, ok: false, error: (e as Error).message });
    }
  })
  .on('close', () => {
    db.close();
    process.exit(0);
  });
