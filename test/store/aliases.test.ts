/** What was found of ALIAS targets (zone_aliases): only the current target's answer counts, a new answer is a new
 * generation, and the rows go with their zone. On both stores. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOrg } from '../../store/accounts';
import { recordAliasLooks, zoneAliasesOf } from '../../store/aliases';
import type { Store } from '../../store/db';
import { createZone, deleteZone, putRRset, zoneByName } from '../../store/zones';
import { aliasAnswer, checkCnameConflict } from '../../zonefiles';
import { openTestStore } from '../helpers/store';

const ZONE = 'example.com';
const QUOTA = { plan: 'free', rrsets: 5000, bytes: 5 << 20 };

describe('zone_aliases', () => {
  let s: Store;
  let orgId: number;
  const pointAt = (target: string) => putRRset(s, {
    orgId, zone: ZONE, actor: 't', cnameConflict: checkCnameConflict, quota: QUOTA, rrset: { name: ZONE, type: 'ALIAS', ttl: 300, records: [{ content: target }] },
  });
  const answered = (target: string, a: string) => recordAliasLooks(s, { zone: ZONE, looks: [{ name: ZONE, target, look: { answer: aliasAnswer([a], [], 300) } }], actor: 'system:alias' });

  beforeEach(async () => {
    s = await openTestStore(':memory:');
    orgId = (await createOrg(s, 'acme', 'free')).id;
    await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
  });
  afterEach(() => s.close());

  it('a first answer is a new generation; the same again is not; a failure keeps the answer and says why', async () => {
    await pointAt('a.example.net');
    const gen = (await zoneByName(s, ZONE))!.generation;
    expect(await answered('a.example.net', '192.0.2.1')).toBe(true);
    expect((await zoneByName(s, ZONE))!.generation).toBe(gen + 1);
    expect(await answered('a.example.net', '192.0.2.1')).toBe(false);
    expect(await recordAliasLooks(s, { zone: ZONE, looks: [{ name: ZONE, target: 'a.example.net', look: { error: 'SERVFAIL' } }], actor: 'system:alias' })).toBe(false);
    expect((await zoneByName(s, ZONE))!.generation).toBe(gen + 1);
    expect((await zoneAliasesOf(s, ZONE)).aliases).toEqual([expect.objectContaining({
      target: 'a.example.net', answer: { a: ['192.0.2.1'], aaaa: [], ttl: 300 }, error: 'SERVFAIL',
    })]);
  });

  it('an answer for a target the ALIAS no longer has is not recorded, and the old target\'s answer is not the new one\'s', async () => {
    await pointAt('a.example.net');
    await answered('a.example.net', '192.0.2.1');
    await pointAt('b.example.net');
    expect(await answered('a.example.net', '192.0.2.9')).toBe(false);
    expect((await zoneAliasesOf(s, ZONE)).aliases).toEqual([{ name: ZONE, target: 'b.example.net', answer: null, resolvedAt: null, checkedAt: null, error: null }]);
  });

  it('a generation a look makes is summarized by the ALIASes it changed, a few by name, never by their addresses', async () => {
    const names = Array.from({ length: 5 }, (_, i) => `a${i}.${ZONE}`);
    for (const name of names) {
      await putRRset(s, { orgId, zone: ZONE, actor: 't', cnameConflict: checkCnameConflict, quota: QUOTA, rrset: { name, type: 'ALIAS', ttl: 300, records: [{ content: 'cdn.example.net' }] } });
    }
    const a = Array.from({ length: 16 }, (_, i) => `198.51.100.${i + 1}`);
    const aaaa = Array.from({ length: 16 }, (_, i) => `2001:db8::${i + 1}`);
    const looks = names.map((name) => ({ name, target: 'cdn.example.net', look: { answer: aliasAnswer(a, aaaa, 300) } }));
    expect(await recordAliasLooks(s, { zone: ZONE, looks, actor: 'system:alias' })).toBe(true);
    const [rev] = await s.raw<{ summary: string }>('aliasSummary', `SELECT summary FROM zone_revisions WHERE zone = ? AND actor = 'system:alias'`, [ZONE]);
    expect(rev!.summary).toBe(`ALIAS a0.${ZONE} → cdn.example.net, ALIAS a1.${ZONE} → cdn.example.net, ALIAS a2.${ZONE} → cdn.example.net and 2 more ALIAS rrsets resolved to new addresses`);
  });

  it('go with their zone', async () => {
    await pointAt('a.example.net');
    await answered('a.example.net', '192.0.2.1');
    await deleteZone(s, { orgId, name: ZONE, actor: 't' });
    await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    expect(await zoneAliasesOf(s, ZONE)).toEqual({ aliases: [], stale: [] });
  });
});
