/** `hostplane admin --data DIR ...`: the operator CLI that bootstraps what the API does not. JSON on stdout;
 * the `list` commands and `status` print aligned columns (JSON with `--json`). */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { hashPassword } from '../lib/access-hash';
import { badRequest, notFound } from '../lib/errors';
import type { Plans } from '../rules/plans';
import {
  createOrg, createToken, createUser, listOrgs, listTokens, listUsers, orgBySlug, registerNode, revokeToken, ROLES,
  removeMembership, rotateNodeToken, setMembership, setOrgPlan, TOKEN_ID, type Role,
} from '../store/accounts';
import { iso, openStore, STORE_FILE, type Store } from '../store/db';
import { checkDatabaseUrl, redactUrl } from '../store/db-pg';
import { migrateStore } from '../store/migrate-store';
import { databaseUrlOf, openStoreAt } from '../store/open';
import { listNodes, removeNode } from '../store/nodes';
import { removePlacement, setPlacement } from '../store/projects';
import { readStatus } from '../store/read-model';
import { PASSWORD_LENGTH, setPasswordHash } from '../store/sessions';
import { createZone } from '../store/zones';
import { checkZoneName } from '../zonefiles';
import { checkGiven, durationMs, FLAG_HELP, type FlagName, type Flags } from './options';
import { StatusReport } from './status';
import { Listing } from './listing';

const SLUG = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** At most 254 characters: RFC 5321's limit, and within what PostgreSQL's unique index on it can hold. */
const EMAIL = /^(?=.{1,254}$)[^\s@]+@[^\s@]+\.[^\s@]+$/;
const NODE_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Printable, no control characters, at most 64 of them. */
const TOKEN_NAME = /^[^\p{C}]{1,64}$/u;

function check(value: string, re: RegExp, what: string): string {
  if (!re.test(value)) throw badRequest(`invalid ${what}: ${JSON.stringify(value)}`);
  return value;
}

export interface AdminOptions {
  plans: Plans;
  /** The public nameservers: a zone's apex NS. */
  nameservers: string[];
}

interface Ctx { s: Store; flags: Flags; opts: AdminOptions; note(message: string): void }

/** One admin command: what `admin <command> --help` says about it and what it runs. */
export interface AdminCommand {
  /** One or two words: `status`, `org create`. */
  name: string;
  /** Its positional arguments, all required. */
  args: readonly string[];
  /** The flags it takes besides where its store is (`--data`, `--database-url`) and `--help`. */
  flags: readonly FlagName[];
  /** Those of its flags it cannot run without: its synopsis shows them unbracketed. */
  required?: readonly FlagName[];
  /** It opens no store of `--data` or `--database-url` (which it then does not take): its flags name what it opens. */
  ownStores?: true;
  help: string;
  run(c: Ctx, args: string[]): Promise<unknown>;
}

/** A password from stdin: all of it but one final line end when piped; one line typed without echo on a terminal. */
async function readPassword(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  }
  process.stderr.write(prompt);
  // readline echoes what is typed to its output: a stream that drops it keeps the password off the screen.
  const rl = createInterface({ input: process.stdin, output: new Writable({ write: (_c, _e, done) => done() }), terminal: true });
  try {
    return await new Promise<string>((resolve) => rl.question('', resolve));
  } finally {
    rl.close();
    process.stderr.write('\n');
  }
}

const orgOf = async (s: Store, slug: string) => {
  const org = await orgBySlug(s, slug);
  if (!org) throw notFound(`organization ${slug}`);
  return org;
};

const knownPlan = (plans: Plans, plan: string): string => {
  if (!(plan in plans)) throw badRequest(`unknown plan ${plan}; plans: ${Object.keys(plans).join(', ')}`);
  return plan;
};

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/** `--expires-in` or `--expires-at` as the RFC 3339 time the token stops working, or null: it does not expire. */
export function tokenExpiry(flags: Pick<Flags, 'expires-in' | 'expires-at'>, now: Date): string | null {
  const inText = flags['expires-in'];
  const atText = flags['expires-at'];
  if (inText !== undefined && atText !== undefined) throw badRequest('give --expires-in or --expires-at, not both');
  let at: Date;
  if (inText !== undefined) {
    const ms = durationMs(inText);
    if (ms === null) throw badRequest(`invalid --expires-in ${inText}; expected a number and m, h or d, as 30d`);
    at = new Date(now.getTime() + ms);
  } else if (atText !== undefined) {
    at = new Date(atText);
    if (!ISO_TIME.test(atText) || Number.isNaN(at.getTime())) {
      throw badRequest(`invalid --expires-at ${atText}; expected an ISO 8601 time with its offset, as 2027-01-31T00:00:00Z`);
    }
    if (at <= now) throw badRequest(`--expires-at ${atText} is not in the future`);
  } else {
    return null;
  }
  return iso(at);
}

/** Every admin command but `init`, which is the one that needs no store. */
export const ADMIN_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'org create', args: ['<slug>'], flags: ['plan', 'plans'],
    help: 'creates an organization on a plan; prints it with its project limit',
    async run({ s, flags, opts }, [slug]) {
      const plan = knownPlan(opts.plans, flags.plan);
      const org = await createOrg(s, check(slug!, SLUG, 'organization slug'), plan);
      return { slug: org.slug, plan: org.plan, projectLimit: opts.plans[plan]!.projects };
    },
  },
  {
    name: 'org list', args: [], flags: ['json'],
    help: 'lists the organizations: slug, plan, created',
    async run({ s }) {
      return new Listing([['SLUG', 'slug'], ['PLAN', 'plan'], ['CREATED', 'createdAt']], await listOrgs(s));
    },
  },
  {
    name: 'org set-plan', args: ['<org>', '<plan>'], flags: ['plans'],
    help: 'moves an organization to another plan of the plan table; what it holds beyond the new limits stays, and no more is created',
    async run({ s, opts }, [slug, plan]) {
      const { previousPlan } = await setOrgPlan(s, slug!, knownPlan(opts.plans, plan!));
      return { slug, plan, previousPlan, projectLimit: opts.plans[plan!]!.projects };
    },
  },
  {
    name: 'user create', args: ['<email>'], flags: [],
    help: 'creates a user (the email in lower case)',
    async run({ s }, [email]) {
      const u = await createUser(s, check(email!.toLowerCase(), EMAIL, 'email'));
      return { email: u.email };
    },
  },
  {
    name: 'user list', args: [], flags: ['json'],
    help: 'lists the users: email, created, and their organizations as org:role',
    async run({ s }) {
      return new Listing([['EMAIL', 'email'], ['CREATED', 'createdAt'], ['ORGS', 'orgs']], await listUsers(s));
    },
  },
  {
    name: 'user password', args: ['<email>'], flags: [],
    help: `sets the user's console password, read from stdin (${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters; one line end after it is dropped; on a terminal it is asked for without echo); the user's console sessions end`,
    async run({ s }, [emailGiven]) {
      const email = emailGiven!.toLowerCase();
      const password = await readPassword(`password for ${email}: `);
      if (password.length < PASSWORD_LENGTH.min || password.length > PASSWORD_LENGTH.max) {
        throw badRequest(`the password must have ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters (it has ${password.length})`);
      }
      const { sessionsEnded } = await setPasswordHash(s, email, await hashPassword(password));
      return { email, sessionsEnded };
    },
  },
  {
    name: 'member add', args: ['<org>', '<email>', '<viewer|member|admin>'], flags: [],
    help: 'makes the user a member of the organization, or changes the role of a member (then `previousRole` says which it was)',
    async run({ s, note }, [org, emailGiven, role]) {
      if (!ROLES.includes(role as Role)) throw badRequest(`invalid role ${role}; roles: ${ROLES.join(', ')}`);
      const email = emailGiven!.toLowerCase();
      const { previousRole } = await setMembership(s, org!, email, role as Role);
      if (previousRole && previousRole !== role) note(`${email} was ${previousRole} in ${org}, now ${role}`);
      if (previousRole === role) note(`${email} was ${role} in ${org} already`);
      return { org, email, role, previousRole: previousRole ?? null };
    },
  },
  {
    name: 'member remove', args: ['<org>', '<email>'], flags: [],
    help: 'takes the user out of the organization (their tokens stay, for their other organizations); nodes end their `org`-mode access sessions for it at their next bundle',
    async run({ s, note }, [org, emailGiven]) {
      const email = emailGiven!.toLowerCase();
      const { previousRole } = await removeMembership(s, org!, email);
      if (!previousRole) note(`${email} was no member of ${org}`);
      return { org, email, previousRole: previousRole ?? null };
    },
  },
  {
    name: 'token create', args: ['<email>'], flags: ['name', 'expires-in', 'expires-at'],
    help: 'issues an API token for the user; the token is printed this once and stored only as its hash',
    async run({ s, flags }, [email]) {
      const name = check(flags.name, TOKEN_NAME, 'token name');
      const expiresAt = tokenExpiry(flags, s.clock());
      const t = await createToken(s, email!.toLowerCase(), { name, expiresAt });
      return { token: t.token, id: t.id, name: t.name, email: t.email, expiresAt: t.expiresAt };
    },
  },
  {
    name: 'token list', args: [], flags: ['json'],
    help: 'lists the API tokens, never the token itself: id, name, user, created, expires',
    async run({ s }) {
      const now = iso(s.clock());
      const rows = (await listTokens(s)).map((t) => ({ ...t, expired: t.expiresAt !== null && t.expiresAt <= now }));
      const shown = rows.map((t) => ({ ...t, expires: t.expiresAt === null ? 'never' : `${t.expiresAt}${t.expired ? ' (expired)' : ''}` }));
      return new Listing([['ID', 'id'], ['NAME', 'name'], ['USER', 'email'], ['CREATED', 'createdAt'], ['EXPIRES', 'expires']], shown)
        .withJson(rows);
    },
  },
  {
    name: 'token revoke', args: ['<id>'], flags: [],
    help: 'deletes the token with this id (from `token list`): requests with it are refused from then on; again is no error',
    async run({ s }, [id]) {
      return { id, ...(await revokeToken(s, check(id!, TOKEN_ID, 'token id (12 hex digits, from token list)'))) };
    },
  },
  {
    name: 'node register', args: ['<nodeId>'], flags: [],
    help: 'registers a node; prints its token, this once',
    async run({ s }, [nodeId]) {
      return { nodeId, token: await registerNode(s, check(nodeId!, NODE_ID, 'node id')) };
    },
  },
  {
    name: 'node list', args: [], flags: ['json'],
    help: 'lists the nodes: id, created, the projects placed on each (org/project), last report',
    async run({ s }) {
      return new Listing([['NODE', 'nodeId'], ['CREATED', 'createdAt'], ['PROJECTS', 'projects'], ['LAST REPORT', 'lastReportAt']], await listNodes(s));
    },
  },
  {
    name: 'node remove', args: ['<nodeId>'], flags: [],
    help: 'removes a node: its token is refused at once (a long-poll held with it too), its projects are taken off it and left unplaced (admin status lists them); prints those projects',
    async run({ s }, [nodeId]) {
      return { nodeId, unplaced: await removeNode(s, nodeId!) };
    },
  },
  {
    name: 'node token rotate', args: ['<nodeId>'], flags: [],
    help: 'gives the node a new token, printed this once; the old one is refused at once (a long-poll held with it too)',
    async run({ s }, [nodeId]) {
      return { nodeId, token: await rotateNodeToken(s, nodeId!) };
    },
  },
  {
    name: 'placement set', args: ['<org>', '<project>', '<nodeId>'], flags: [],
    help: 'places a project on a node',
    async run({ s }, [slug, project, nodeId]) {
      const org = await orgOf(s, slug!);
      await setPlacement(s, org.id, project!, nodeId!);
      return { org: slug, project, nodeId };
    },
  },
  {
    name: 'placement remove', args: ['<org>', '<project>', '<nodeId>'], flags: [],
    help: 'takes a project off a node: the node stops its workers at its next bundle; again is no error (`removed: false`), an unknown node is (`node <id> not found`, exit 1)',
    async run({ s, note }, [slug, project, nodeId]) {
      const org = await orgOf(s, slug!);
      const removed = await removePlacement(s, org.id, project!, nodeId!);
      if (!removed) note(`${slug}/${project} was not placed on ${nodeId}`);
      return { org: slug, project, nodeId, removed };
    },
  },
  {
    name: 'zone create', args: ['<org>', '<name>'], flags: ['nameservers'],
    help: 'creates one of the platform\'s own zones (the app domain, the nameservers\' domain): no reserved-name or quota check',
    async run({ s, opts }, [slug, name]) {
      const org = await orgOf(s, slug!);
      const checked = checkZoneName(name!);
      if (!checked.ok) throw badRequest(`invalid zone name ${JSON.stringify(name)}: it ${checked.reason}`);
      const { zone, created } = await createZone(s, {
        orgId: org.id, name: checked.name, nameservers: opts.nameservers, actor: 'operator', quota: null,
      });
      return { org: slug, zone: zone.name, created };
    },
  },
  {
    name: 'status', args: [], flags: ['json'],
    help: 'prints who leads (URL, term, since when) and each process\'s last heartbeat, then the reconcile status of every zone, custom hostname, node and domain as a table per kind, then each last error in full; --json: all of it as one JSON object, with the change feed position',
    async run({ s }) {
      return new StatusReport(await readStatus(s));
    },
  },
];

/** `init`: the one command that creates a store. */
export const INIT: Omit<AdminCommand, 'run'> = {
  name: 'init', args: [], flags: [],
  help: 'creates an empty store, as serve does on first start; the other commands refuse a data dir without one',
};

/** `migrate-store`: the one command that opens two stores, neither of them the one of `--data`. */
export const MIGRATE_STORE: Omit<AdminCommand, 'run'> = {
  name: 'migrate-store', args: [], flags: ['from', 'to'], required: ['from'], ownStores: true,
  help: 'copies the SQLite store of a data dir (locked meanwhile: stop serve and core first) into an empty PostgreSQL database, every table with the change feed\'s position and the audit log, in one transaction; run again on the same source it does nothing, and a database holding anything else is refused. Prints the rows copied per table (docs/operations.md)',
};

/** Every admin command, in the order help lists them. */
export const EVERY_ADMIN_COMMAND: readonly Omit<AdminCommand, 'run'>[] = [INIT, ...ADMIN_COMMANDS, MIGRATE_STORE];

/** `org create <slug> [--plan PLAN] [--plans FILE]`. */
export const synopsis = (c: Omit<AdminCommand, 'run'>): string => [c.name, ...c.args, ...c.flags.map((f) => {
  const flag = `--${f}${FLAG_HELP[f].arg ? ` ${FLAG_HELP[f].arg}` : ''}`;
  return c.required?.includes(f) ? flag : `[${flag}]`;
})].join(' ');

export const usageOf = (c: Omit<AdminCommand, 'run'>): string => `hostplane admin ${c.ownStores ? '' : '--data DIR '}${synopsis(c)}`;

/** The flags `admin <command> --help` describes: where its store is, and its own. */
export const flagsOfAdmin = (c: Omit<AdminCommand, 'run'>): FlagName[] => [...(c.ownStores ? [] : ['data', 'database-url'] as const), ...c.flags];

/** The command that `args` start with, and the arguments after its name. */
export function findAdminCommand(args: string[]): { command: Omit<AdminCommand, 'run'> & Partial<AdminCommand>; rest: string[] } | undefined {
  for (const command of EVERY_ADMIN_COMMAND) {
    const words = command.name.split(' ');
    if (words.every((w, i) => args[i] === w)) return { command, rest: args.slice(words.length) };
  }
  return undefined;
}

/** The admin commands whose name starts with `words` (`token`: create, list, revoke); none for a whole name. */
export function adminGroup(words: string[]): Omit<AdminCommand, 'run'>[] {
  if (words.length === 0) return [];
  return EVERY_ADMIN_COMMAND.filter((c) => {
    const name = c.name.split(' ');
    return name.length > words.length && words.every((w, i) => name[i] === w);
  });
}

/** What an admin command answered: JSON, or text for a listing without `--json`. */
export type AdminOutput = { json: unknown } | { text: string };

/** Runs one admin command on the store in `dataDir` (`migrate-store`: on the two its flags name). Only `init`
 * creates a store: with a mistyped --data, a command would otherwise succeed on a new, empty store that nothing
 * serves. `note` gets what the operator should read besides the answer (stderr). */
export async function runAdmin(
  flags: Flags, given: Iterable<FlagName>, args: string[], opts: AdminOptions, note: (message: string) => void = () => undefined,
): Promise<AdminOutput> {
  const found = findAdminCommand(args);
  if (!found) {
    const group = adminGroup(args);
    if (group.length > 0) {
      const next = group.map((c) => c.name.split(' ')[args.length]).join(', ');
      throw badRequest(`admin ${args.join(' ')} needs a subcommand: ${next} (hostplane admin ${args.join(' ')} --help describes them)`);
    }
    throw badRequest(`unknown admin command${args.length ? ` ${args.join(' ')}` : ''} (hostplane admin --help lists them)`);
  }
  const { command, rest } = found;
  const flagsGiven = new Set(given);
  checkGiven('admin', flagsGiven, flagsOfAdmin(command), `admin ${command.name}`);
  if (rest.length !== command.args.length || command.required?.some((f) => !flagsGiven.has(f))) throw badRequest(`usage: ${usageOf(command)}`);
  if (command === MIGRATE_STORE) {
    const to = databaseUrlOf(flags.to, '--to');
    if (!to) throw badRequest('admin migrate-store needs --to URL, or HOSTPLANE_DATABASE_URL, naming the PostgreSQL database to copy into');
    checkDatabaseUrl(to, '--to');
    const moved = await migrateStore(flags.from!, to);
    if (!moved.copied) note(`the database holds this store's copy already (made ${moved.at}): nothing was done`);
    return { json: moved };
  }
  const databaseUrl = databaseUrlOf(flags['database-url']);
  if (!command.run) {
    if (databaseUrl) {
      (await openStoreAt({ data: flags.data, databaseUrl })).close();
      return { json: { store: redactUrl(databaseUrl) } };
    }
    const created = !existsSync(resolve(flags.data, STORE_FILE));
    openStore(flags.data).close();
    return { json: { store: resolve(flags.data, STORE_FILE), created } };
  }
  const s = await openStoreAt({ data: flags.data, databaseUrl }, { create: false });
  try {
    const out = await command.run({ s, flags, opts, note }, rest);
    if (out instanceof Listing || out instanceof StatusReport) return flags.json ? { json: out.json() } : { text: out.text() };
    return { json: out };
  } finally {
    s.close();
  }
}
