/** `hostplane admin --data DIR ...`: the operator CLI that bootstraps what the API does not. JSON on stdout. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError, badRequest } from '../lib/errors';
import { createOrg, createUser, issueToken, orgBySlug, registerNode, ROLES, setMembership, type Role } from '../store/accounts';
import { openStore, STORE_FILE, type Store } from '../store/db';
import type { Plans } from '../lib/plans';
import { setPlacement } from '../store/projects';
import { createZone } from '../store/zones';
import { checkZoneName } from '../zonefiles';
import { readStatus } from '../store/status';

export const ADMIN_USAGE = `hostplane admin --data DIR <command>
  init                          (creates an empty store, as serve does on first start; the others need one)
  org create <slug> [--plan free|pro]
  user create <email>
  member add <org> <email> <viewer|member|admin>
  token create <email>
  node register <nodeId>
  placement set <org> <project> <nodeId>
  zone create <org> <name>      (the platform's own zones: no reserved-name or quota check)
  status`;

const SLUG = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const NODE_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

function need(args: string[], n: number, usage: string): string[] {
  if (args.length !== n) throw badRequest(`usage: hostplane admin --data DIR ${usage}`);
  return args;
}

function check(value: string, re: RegExp, what: string): string {
  if (!re.test(value)) throw badRequest(`invalid ${what}: ${JSON.stringify(value)}`);
  return value;
}

export interface AdminOptions {
  plan?: string;
  plans: Plans;
  /** The public nameservers: a zone's apex NS. */
  nameservers: string[];
}

/** Runs one admin command on the store in `dataDir` and returns what it prints as JSON. Only `init` creates
 * a store: with a mistyped --data, a command would otherwise succeed on a new, empty store that nothing serves. */
export async function runAdmin(dataDir: string, args: string[], opts: AdminOptions): Promise<unknown> {
  if (args[0] === 'init') {
    need(args, 1, 'init');
    const created = !existsSync(resolve(dataDir, STORE_FILE));
    openStore(dataDir).close();
    return { store: resolve(dataDir, STORE_FILE), created };
  }
  const s = openStore(dataDir, { create: false });
  try {
    return await command(s, args, opts);
  } finally {
    s.close();
  }
}

async function command(s: Store, args: string[], opts: AdminOptions): Promise<unknown> {
  const [noun, verb, ...rest] = args;
  switch (`${noun} ${verb}`) {
    case 'org create': {
      const [slug] = need(rest, 1, 'org create <slug> [--plan free|pro]');
      const plan = opts.plan ?? 'free';
      if (!(plan in opts.plans)) throw badRequest(`unknown plan ${plan}; plans: ${Object.keys(opts.plans).join(', ')}`);
      const org = await createOrg(s, check(slug!, SLUG, 'organization slug'), plan);
      return { slug: org.slug, plan: org.plan, projectLimit: opts.plans[plan]!.projects };
    }
    case 'user create': {
      const [email] = need(rest, 1, 'user create <email>');
      const u = await createUser(s, check(email!.toLowerCase(), EMAIL, 'email'));
      return { email: u.email };
    }
    case 'member add': {
      const [org, email, role] = need(rest, 3, 'member add <org> <email> <viewer|member|admin>');
      if (!ROLES.includes(role as Role)) throw badRequest(`invalid role ${role}; roles: ${ROLES.join(', ')}`);
      await setMembership(s, org!, email!.toLowerCase(), role as Role);
      return { org, email: email!.toLowerCase(), role };
    }
    case 'token create': {
      const [email] = need(rest, 1, 'token create <email>');
      return { token: await issueToken(s, email!.toLowerCase()) };
    }
    case 'node register': {
      const [nodeId] = need(rest, 1, 'node register <nodeId>');
      return { nodeId, token: await registerNode(s, check(nodeId!, NODE_ID, 'node id')) };
    }
    case 'placement set': {
      const [slug, project, nodeId] = need(rest, 3, 'placement set <org> <project> <nodeId>');
      const org = await orgBySlug(s, slug!);
      if (!org) throw new AppError(404, 'not_found', `organization ${slug} not found`);
      await setPlacement(s, org.id, project!, nodeId!);
      return { org: slug, project, nodeId };
    }
    case 'zone create': {
      const [slug, name] = need(rest, 2, 'zone create <org> <name>');
      const org = await orgBySlug(s, slug!);
      if (!org) throw new AppError(404, 'not_found', `organization ${slug} not found`);
      const checked = checkZoneName(name!);
      if (!checked.ok) throw badRequest(`invalid zone name ${JSON.stringify(name)}: it ${checked.reason}`);
      const { zone, created } = await createZone(s, {
        orgId: org.id, name: checked.name, nameservers: opts.nameservers, actor: 'operator', quota: null,
      });
      return { org: slug, zone: zone.name, created };
    }
    default:
      if (noun === 'status' && verb === undefined) return readStatus(s);
      throw badRequest(`unknown admin command\n${ADMIN_USAGE}`);
  }
}
