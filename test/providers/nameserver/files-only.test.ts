import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { filesOnlyNameserver } from '../../../providers/nameserver/files-only';
import { createLogger } from '../../../lib/log';
import { zoneReconciler } from '../../../reconcilers/zones';
import { createOrg } from '../../../store/accounts';
import { openTestStore } from '../../helpers/store';
import { statusOf } from '../../../store/status';
import { createZone, deleteZone, type ZoneFacts } from '../../../store/zones';

const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });

describe('without knotd: the files-only nameserver', () => {
  const dirs: string[] = [];
  afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

  it('still renders the zone file, and the zone status says that nothing serves it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hp-files-only-'));
    dirs.push(dir);
    const store = await openTestStore(':memory:');
    const ns = filesOnlyNameserver(join(dir, 'zones'), 'knotd is not installed: zone files are rendered but nothing serves them');
    await ns.start([]);
    const { id } = await createOrg(store, 'acme', 'free');
    await createZone(store, { orgId: id, name: 'example.com', nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    const r = zoneReconciler({ store, nameserver: ns, resolver: { ns: async () => [] }, nameservers: ['ns1.hostplane.test'], log: silent });
    await r.reconcile('example.com', new AbortController().signal);
    const file = join(dir, 'zones', 'example.com.zone');
    expect(readFileSync(file, 'utf8')).toMatch(/^\$ORIGIN example\.com\.\n@ 3600 IN SOA ns1\.hostplane\.test\. /);
    const st = await statusOf<ZoneFacts>(store, 'zone', 'example.com');
    expect(st).toMatchObject({ facts: { servedSerial: null } });
    expect(st!.lastError).toMatch(/nameserver not running: knotd is not installed/);
    expect(st!.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'False', reason: 'NameserverDown', message: expect.not.stringMatching(/\//) })]);
    await deleteZone(store, { orgId: id, name: 'example.com', actor: 't' });
    await r.reconcile('example.com', new AbortController().signal);
    expect(existsSync(file)).toBe(false);
    store.close();
  });
});
