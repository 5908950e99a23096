/**
 * What this process's writes changed in a zone, one generation at a time, kept in memory for the zone's pass, so
 * that the pass need not read back from the store the rrsets a write has just written (docs/dns.md, "How fast a
 * change is served": that read was the largest step between a write's commit and Knot's commands).
 *
 * Only a chain is used: the generations from the one the pass serves to the zone's current one, each recorded by
 * the write that made it, in the same lifetime of the zone. A generation made elsewhere (another process on
 * PostgreSQL, a write that does not hand its diff over, such as an ALIAS answer's, or one evicted below) breaks the
 * chain, and the pass reads the store as before. Nothing is kept unless a pass asked for handovers (`acceptHandovers`).
 */
import type { Store, Tx } from './db';
import type { RevisionChange } from './schema';

/** A zone's generations this far apart at most are kept, and this many changed rrsets among them: a zone that is
 * written and not served (its nameserver down) holds no more. A larger diff is not kept at all: a pass loads a
 * change that large whole anyway, or reads it. */
const MAX_GENERATIONS = 64;
const MAX_CHANGES = 1_024;
/** Zones with handovers kept at most; the one written longest ago goes first. */
const MAX_ZONES = 256;

interface Kept { uid: string; diffs: Map<number, RevisionChange[]>; changes: number }
const kept = new WeakMap<Store, Map<string, Kept>>();

/** From now on, writes to `s` hand their zone diffs over (idempotent). */
export function acceptHandovers(s: Store): void {
  if (!kept.has(s)) kept.set(s, new Map());
}

/**
 * Hands over, once the write of `tx` has committed, the diff that took zone `name` (lifetime `uid`) to `generation`.
 * `diff` must name every rrset the generation wrote or removed, with what it stored.
 */
export function handOver(s: Store, tx: Tx, name: string, uid: string, generation: number, diff: RevisionChange[]): void {
  const zones = kept.get(s);
  if (!zones || diff.length > MAX_CHANGES) return;
  tx.afterCommit(() => {
    let z = zones.get(name);
    if (z?.uid !== uid) z = { uid, diffs: new Map(), changes: 0 };
    zones.delete(name);
    zones.set(name, z);
    z.diffs.set(generation, diff);
    z.changes += diff.length;
    // Map order is the order of recording, which is the generations' order but for a concurrent commit's.
    for (const [g, d] of z.diffs) {
      if (z.diffs.size <= MAX_GENERATIONS && z.changes <= MAX_CHANGES) break;
      z.diffs.delete(g);
      z.changes -= d.length;
    }
    if (zones.size > MAX_ZONES) zones.delete(zones.keys().next().value!);
  });
}

/**
 * The last change of each rrset written or removed in zone `name` (lifetime `uid`) after generation `since` up to
 * `generation`, from the handed diffs (a removal has no `after`); 'more' once they are more than `atMost`; undefined
 * when a generation between is missing, or `since` is past `generation`. Diffs of generations up to `since` are
 * dropped: the pass that asks serves `since`.
 */
export function handedChanges(s: Store, name: string, uid: string, since: number, generation: number, atMost: number): RevisionChange[] | 'more' | undefined {
  const z = kept.get(s)?.get(name);
  // A row older than what the asker serves says nothing of the zone now: only a read does.
  if (!z || z.uid !== uid || since > generation) return undefined;
  for (const [g, d] of z.diffs) {
    if (g > since) continue;
    z.diffs.delete(g);
    z.changes -= d.length;
  }
  const last = new Map<string, RevisionChange>();
  for (let g = since + 1; g <= generation; g++) {
    const diff = z.diffs.get(g);
    if (!diff) return undefined;
    for (const c of diff) last.set(`${c.name} ${c.type}`, c);
    if (last.size > atMost) return 'more';
  }
  return [...last.values()];
}
