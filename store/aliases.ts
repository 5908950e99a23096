/**
 * What the zone reconciler found of each ALIAS target (zone_aliases): observed facts, but served ones, so a new
 * answer is a new generation of its zone, written in the same transaction as the answer.
 */
import { and, eq, inArray, max } from 'drizzle-orm';
import { AppError } from '../lib/errors';
import { ALIAS_MIN_CHANGE, sameAnswer, type AliasAnswer } from '../zonefiles';
import { iso, type Store, type Tx } from './db';
import { rrsets, zoneAliases, zoneRevisions } from './schema';
import { bump, zoneToChange, type AliasFact } from './zones';

/** One ALIAS rrset of a zone and what was found of its target. */
export interface ZoneAlias {
  name: string;
  target: string;
  /** The last answer, served at `name`; null when the target has never answered (nothing is served there). */
  answer: AliasAnswer | null;
  /** When the target last answered. */
  resolvedAt: string | null;
  /** When it was last asked, answered or not; null: not yet. */
  checkedAt: string | null;
  /** Why the last look found no addresses; the last answer goes on being served. */
  error: string | null;
}

interface Row {
  stale: number; name: string; records: string | null; target: string | null; a: string | null; aaaa: string | null; ttl: number | null;
  resolved_at: string | null; checked_at: string | null; error: string | null;
}

/**
 * The zone's ALIAS rrsets by name, each with what was found of its target, and the names of what was found for
 * ALIAS rrsets deleted since (`stale`), in one statement. A row found for another target (the ALIAS was pointed
 * elsewhere since) is not this target's: as if none. Read through the partial index on ALIAS.
 */
export async function zoneAliasesOf(s: Store, zone: string): Promise<{ aliases: ZoneAlias[]; stale: string[] }> {
  const rows = await s.raw<Row>('zoneAliases', `SELECT * FROM (
      SELECT 0 AS stale, r.name, r.records, a.target, a.a, a.aaaa, a.ttl, a.resolved_at, a.checked_at, a.error
      FROM rrsets r LEFT JOIN zone_aliases a ON a.zone = r.zone AND a.name = r.name WHERE r.zone = ? AND r.type = 'ALIAS'
    ) AS live
    UNION ALL
    SELECT 1, a.name, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM zone_aliases a
    WHERE a.zone = ? AND NOT EXISTS (SELECT 1 FROM rrsets r WHERE r.zone = a.zone AND r.name = a.name AND r.type = 'ALIAS')
    ORDER BY 2`, [zone, zone]);
  const aliases: ZoneAlias[] = [];
  const stale: string[] = [];
  for (const r of rows) {
    if (Number(r.stale) === 1) {
      stale.push(r.name);
      continue;
    }
    const target = (JSON.parse(r.records!) as { content: string }[])[0]!.content;
    const found = r.target === target;
    aliases.push({
      name: r.name, target,
      answer: found && r.resolved_at !== null ? { a: JSON.parse(r.a!) as string[], aaaa: JSON.parse(r.aaaa!) as string[], ttl: Number(r.ttl) } : null,
      resolvedAt: found ? r.resolved_at : null,
      checkedAt: found ? r.checked_at : null,
      error: found ? r.error : null,
    });
  }
  return { aliases, stale };
}

/** A look at an ALIAS target: the answer, or why there is none. */
export type AliasLook = { answer: AliasAnswer } | { error: string };

/** When an answer last made a generation of the zone, by `actor` (ms on the store's clock), if one still marks an
 * ALIAS rrset of it: the revisions at the generations its ALIAS rrsets changed at, at most 25 primary-key reads. */
async function lastAnswerChange(tx: Tx, zone: string, actor: string): Promise<number | undefined> {
  const [row] = await tx.select({ at: max(zoneRevisions.at) }).from(rrsets)
    .innerJoin(zoneRevisions, and(eq(zoneRevisions.zone, rrsets.zone), eq(zoneRevisions.generation, rrsets.changedGen)))
    .where(and(eq(rrsets.zone, zone), eq(rrsets.type, 'ALIAS'), eq(zoneRevisions.actor, actor)));
  return row?.at ? Date.parse(row.at) : undefined;
}

/** A look at the target of the ALIAS at `name`. */
export interface AliasLookAt { name: string; target: string; look: AliasLook }

/**
 * Records a zone's looks at its ALIAS targets, each if the zone still has that ALIAS with that target, in one
 * transaction. Answers other than the ones served (or first ones) raise the zone's generation and serial once, with
 * a revision by `actor`, and mark those ALIAS rrsets changed at that generation, so the reconciler serves the new
 * addresses as any change; but within {@link ALIAS_MIN_CHANGE} of the last generation answers made in the zone,
 * unless one is a first answer, the served answers stay (and `resolvedAt` with them: it says when the served
 * addresses were found), and a look after the window serves what the targets say then. Together, as the zone's
 * ALIASes are looked at together: recorded one by one, the first new answer's generation held every other ALIAS of
 * the zone, window after window. A failure keeps the last answer and only says why. Answers whether the zone got a
 * new generation.
 */
export async function recordAliasLooks(s: Store, p: { zone: string; looks: AliasLookAt[]; actor: string }): Promise<boolean> {
  const now = s.clock();
  const at = iso(now);
  return s.write(async (tx) => {
    // Deleted meanwhile: its next pass finalizes it.
    const z = await zoneToChange(tx, null, p.zone).catch((e: unknown) => {
      if (e instanceof AppError && e.status === 404) return undefined;
      throw e;
    });
    if (!z) return false;
    const looks = [];
    for (const l of p.looks) {
      const [alias] = await tx.select({ records: rrsets.records }).from(rrsets)
        .where(and(eq(rrsets.zone, p.zone), eq(rrsets.name, l.name), eq(rrsets.type, 'ALIAS')));
      if (alias?.records[0]?.content !== l.target) continue;
      const [row] = await tx.select().from(zoneAliases).where(and(eq(zoneAliases.zone, p.zone), eq(zoneAliases.name, l.name)));
      const before = row && row.target === l.target && row.resolvedAt !== null ? { a: row.a, aaaa: row.aaaa, ttl: row.ttl, resolvedAt: row.resolvedAt } : null;
      const answer = 'answer' in l.look && !(before && sameAnswer(before, l.look.answer)) ? l.look.answer : null;
      looks.push({ ...l, before, answer });
    }
    const changed = looks.filter((l) => l.answer !== null);
    const held = changed.length > 0 && changed.every((l) => l.before !== null)
      && now.getTime() - ((await lastAnswerChange(tx, p.zone, p.actor)) ?? -Infinity) < ALIAS_MIN_CHANGE * 1000;
    for (const l of looks) {
      const kept = { target: l.target, a: [] as string[], aaaa: [] as string[], ttl: 0, resolvedAt: null as string | null, ...l.before, checkedAt: at };
      const values = 'error' in l.look ? { ...kept, error: l.look.error }
        : l.answer && !held ? { target: l.target, ...l.answer, resolvedAt: at, checkedAt: at, error: null }
          : { ...kept, ...(l.answer ? {} : { resolvedAt: at }), error: null };
      await tx.insert(zoneAliases).values({ zone: p.zone, name: l.name, ...values })
        .onConflictDoUpdate({ target: [zoneAliases.zone, zoneAliases.name], set: values });
    }
    if (changed.length === 0 || held) return false;
    const summary = aliasSummary(changed);
    const bumped = await bump(s, tx, z, now, { actor: p.actor, summary, diff: [] });
    await tx.update(rrsets).set({ changedGen: bumped.generation })
      .where(and(eq(rrsets.zone, p.zone), eq(rrsets.type, 'ALIAS'), inArray(rrsets.name, changed.map((l) => l.name))));
    return true;
  });
}

/** Forgets what was found for the zone's ALIAS rrsets at `names`, deleted since. */
export async function forgetAliases(s: Store, zone: string, names: string[]): Promise<void> {
  await s.write(async (tx) => {
    await tx.delete(zoneAliases).where(and(eq(zoneAliases.zone, zone), inArray(zoneAliases.name, names)));
  });
}

export const aliasFacts = (aliases: ZoneAlias[]): AliasFact[] => aliases.map((a) => ({
  name: a.name, target: a.target, addresses: a.answer ? [...a.answer.a, ...a.answer.aaaa] : [], ttl: a.answer?.ttl ?? null,
  resolvedAt: a.resolvedAt, checkedAt: a.checkedAt, error: a.error,
}));

/** ALIASes a revision's summary names; the rest are counted. */
const SUMMARY_NAMES = 3;

/**
 * The summary of a generation a look made: which ALIASes took a new answer, not the addresses (getZone's
 * `status.aliases` has them). Such generations come with no request, every few minutes for as long as a target's
 * answer rotates, and are kept 90 days: 25 ALIASes of 16 A and 16 AAAA each were 21 KB of summary a generation.
 */
export function aliasSummary(changed: { name: string; target: string }[]): string {
  const named = changed.slice(0, SUMMARY_NAMES).map((l) => `ALIAS ${l.name} → ${l.target}`).join(', ');
  const more = changed.length - SUMMARY_NAMES;
  return `${named}${more > 0 ? ` and ${more} more ALIAS rrsets` : ''} resolved to new addresses`;
}
