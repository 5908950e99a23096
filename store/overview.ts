/**
 * What the console's organization page shows (issue 24 item 3): counts of each kind by state, and the conditions
 * that are not True, longest so first. Both are answered by the database, not by reading the resources: the counts
 * grouped in one statement, the conditions ordered by their lastTransitionTime and cut at the page's length in
 * another. An organization with 10,000 failing zones costs a scan of its rows' status inside the database and a
 * page of rows out of it, not 10,000 rows decoded and sorted here.
 */
import type { Condition } from '../lib/conditions';
import { badRequest } from '../lib/errors';
import { RESOURCE_STATES, WAITING_REASONS, type ResourceState } from '../rules/resource-state';
import type { Dialect, Store } from './db';
import { cursorValue, encodeCursor, type Page } from './paging';

export type OverviewKind = 'zone' | 'hostname' | 'domain' | 'project';
/** The kinds with conditions (a project's rollouts are per node, on its own page). */
export type AttentionKind = 'zone' | 'hostname' | 'domain';
export const ATTENTION_KINDS: readonly AttentionKind[] = ['zone', 'hostname', 'domain'];

export interface Attention {
  kind: AttentionKind;
  name: string;
  condition: Pick<Condition, 'type' | 'status' | 'reason' | 'message' | 'lastTransitionTime'>;
}

export interface OrgCounts {
  /** Resources of each kind by state (rules/resource-state.ts `resourceState`, judged in SQL). */
  counts: Record<OverviewKind, Record<ResourceState, number>>;
  /** Conditions that are not True, of each kind. */
  attention: Record<AttentionKind, number>;
}

/** How each database reads the conditions of a status row (`rs`) as rows `c` of a JSON `value` with its `place` in
 * the list, a field of one, the whole as text, and whether the row's text may hold a status that is not True (no
 * `"False"` nor `"Unknown"` in it: every condition is True, and no condition is parsed; a message with those words
 * only costs the parse). PostgreSQL's text from JSON is compared bytewise, as the stored names are (COLLATE "C"), so
 * both order alike. */
interface JsonSql { expand: string; place: string; field: (f: keyof Condition) => string; text: string; mayNotBeTrue: string }
const JSON_SQL: Record<Dialect, JsonSql> = {
  sqlite: {
    expand: 'json_each(rs.conditions) AS c', place: 'c.key', field: (f) => `(c.value ->> '${f}')`, text: 'c.value',
    mayNotBeTrue: `(instr(rs.conditions, '"False"') > 0 OR instr(rs.conditions, '"Unknown"') > 0)`,
  },
  postgres: {
    expand: 'jsonb_array_elements(rs.conditions::jsonb) WITH ORDINALITY AS c(value, place)', place: 'c.place', field: (f) => `(c.value->>'${f}') COLLATE "C"`,
    text: 'c.value::text', mayNotBeTrue: `(strpos(rs.conditions, '"False"') > 0 OR strpos(rs.conditions, '"Unknown"') > 0)`,
  },
};

/** Each kind's resources of organization `?`, with the status row of their lifetime as `rs` (when there is one). */
const SOURCES: Record<AttentionKind, { name: string; generation: string; from: string; where: string }> = {
  zone: {
    name: 'z.name', generation: 'z.generation', where: 'z.org_id = ?',
    from: `zones z LEFT JOIN resource_status rs ON rs.kind = 'zone' AND rs.key = z.name AND rs.uid = z.uid`,
  },
  hostname: {
    name: 'h.name', generation: 'h.generation', where: `p.org_id = ? AND h.kind = 'custom'`,
    from: `hostnames h JOIN projects p ON p.id = h.project_id LEFT JOIN resource_status rs ON rs.kind = 'hostname' AND rs.key = h.name AND rs.uid = h.uid`,
  },
  domain: {
    name: 'd.name', generation: 'd.generation', where: 'd.org_id = ?',
    from: `domains d LEFT JOIN resource_status rs ON rs.kind = 'domain' AND rs.key = d.name AND rs.uid = d.uid`,
  },
};

const WAITING_LIST = [...WAITING_REASONS].map((r) => `'${r}'`).join(', ');

function countsSql(d: Dialect): string {
  const { expand, field, mayNotBeTrue } = JSON_SQL[d];
  // One pass over a resource's conditions: twice how many are not True, plus one when any of those is failing.
  const judged = `CASE WHEN ${mayNotBeTrue} THEN (SELECT 2 * count(*) + coalesce(max(CASE WHEN ${field('reason')} NOT IN (${WAITING_LIST}) THEN 1 ELSE 0 END), 0)
    FROM ${expand} WHERE ${field('status')} <> 'True') ELSE 0 END`;
  const kinds = ATTENTION_KINDS.map((k) => `SELECT '${k}' AS kind, 0 AS deleting, ${SOURCES[k].generation} AS generation, rs.observed_generation AS observed,
    ${judged} AS judged FROM ${SOURCES[k].from} WHERE ${SOURCES[k].where}`);
  // A deleted custom hostname is deleting while its edge and records are cleaned up; a project has no conditions.
  const rows = [...kinds,
    `SELECT 'hostname', 1, 0, 0, 0 FROM hostname_finalizers WHERE org_id = ?`,
    `SELECT 'project', CASE WHEN deleting_since IS NULL THEN 0 ELSE 1 END, 0, 0, 0 FROM projects WHERE org_id = ?`,
  ].join('\nUNION ALL\n');
  return `SELECT kind, state, count(*) AS n, sum(judged / 2) AS conditions FROM (
    SELECT kind, judged, CASE WHEN deleting = 1 THEN 'deleting' WHEN judged % 2 = 1 THEN 'failing'
      WHEN observed IS NULL OR observed < generation OR judged > 0 THEN 'progressing' ELSE 'ready' END AS state
    FROM (${rows}) AS resources) AS judgements
  GROUP BY kind, state`;
}
const COUNT_PARAMS = ATTENTION_KINDS.length + 2;

/** Counts of the organization's resources by kind and state, and of the conditions that are not True. */
export async function orgCounts(s: Store, orgId: number): Promise<OrgCounts> {
  const zero = (): Record<ResourceState, number> => Object.fromEntries(RESOURCE_STATES.map((st) => [st, 0])) as Record<ResourceState, number>;
  const out: OrgCounts = { counts: { zone: zero(), hostname: zero(), domain: zero(), project: zero() }, attention: { zone: 0, hostname: 0, domain: 0 } };
  // PostgreSQL's count and sum are bigint and numeric, which node-postgres gives as strings.
  const rows = await s.raw<{ kind: OverviewKind; state: ResourceState; n: number | string; conditions: number | string | null }>(
    'orgCounts', countsSql(s.dialect), Array<number>(COUNT_PARAMS).fill(orgId));
  for (const r of rows) {
    out.counts[r.kind][r.state] = Number(r.n);
    if (r.kind !== 'project') out.attention[r.kind] += Number(r.conditions ?? 0);
  }
  return out;
}

/** Where a page of one kind's conditions goes on from: the last one shown (its resource, and its place in the
 * resource's list). */
interface After { since: string; name: string; place: number }

/** Only what orders and filters the conditions is read out of every one; the rest of the page's few is parsed here,
 * from their text (reading each field in SQL cost most of the statement's time). */
function attentionSql(d: Dialect, kinds: readonly AttentionKind[], after: boolean): string {
  const { expand, place, field, text, mayNotBeTrue } = JSON_SQL[d];
  const rows = kinds.map((k) => `SELECT '${k}' AS kind, ${SOURCES[k].name} AS name, ${place} AS place, ${field('lastTransitionTime')} AS since, ${text} AS "condition"
    FROM ${SOURCES[k].from} CROSS JOIN ${expand} WHERE ${SOURCES[k].where} AND ${mayNotBeTrue} AND ${field('status')} <> 'True'`).join('\nUNION ALL\n');
  return `SELECT kind, name, place, "condition" FROM (${rows}) AS attention
    ${after ? 'WHERE (since, name, place) > (?, ?, ?)' : ''} ORDER BY since, kind, name, place LIMIT ?`;
}

type AttentionRow = { kind: AttentionKind; name: string; place: number | string; condition: string };
const attentionOf = (r: AttentionRow): Attention & { place: number } => {
  const c = JSON.parse(r.condition) as Condition;
  return {
    kind: r.kind, name: r.name, place: Number(r.place),
    condition: { type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: c.lastTransitionTime },
  };
};

async function readAttention(s: Store, orgId: number, kinds: readonly AttentionKind[], limit: number, after?: After): Promise<(Attention & { place: number })[]> {
  const key = `attention ${kinds.join(',')}${after ? ' after' : ''}`;
  const params = [...kinds.map(() => orgId), ...(after ? [after.since, after.name, after.place] : []), limit];
  return (await s.raw<AttentionRow>(key, attentionSql(s.dialect, kinds, after !== undefined), params)).map(attentionOf);
}

/** The `limit` conditions not True of the organization's zones, custom hostnames and domains that have been so
 * longest. */
export const longestAttention = async (s: Store, orgId: number, limit: number): Promise<Attention[]> =>
  (await readAttention(s, orgId, ATTENTION_KINDS, limit)).map(({ place: _place, ...a }) => a);

function afterOf(cursor: string): After {
  const v = cursorValue(cursor);
  if (!Array.isArray(v) || v.length !== 3 || typeof v[0] !== 'string' || typeof v[1] !== 'string' || !Number.isSafeInteger(v[2])) {
    throw badRequest('not a cursor of this list');
  }
  return { since: v[0], name: v[1], place: v[2] as number };
}

/** One kind's conditions that are not True, longest so first, a page of `limit` from `cursor` on. */
export async function attentionPage(s: Store, orgId: number, kind: AttentionKind, limit: number, cursor?: string): Promise<Page<Attention>> {
  const rows = await readAttention(s, orgId, [kind], limit + 1, cursor === undefined ? undefined : afterOf(cursor));
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  return {
    items: shown.map(({ place: _place, ...a }) => a),
    nextCursor: rows.length > limit && last ? encodeCursor([last.condition.lastTransitionTime, last.name, last.place]) : null,
  };
}
