/** The nameserver contract (contract.ts) against the fake the reconciler tests use and against a real knotd, each
 * on a temp dir and a loopback port of its own (a restart binds a port picked afresh). */
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { createKnotNameserver, type KnotNameserver } from '../../../providers/nameserver/knot';
import { FakeNameserver } from '../../helpers/fake-nameserver';
import { freePort, hasKnot } from '../../helpers/knot';
import { cleanup, tempDir } from '../../helpers/proc';
import { nameserverContract } from './contract';

const started: KnotNameserver[] = [];
afterEach(async () => {
  for (const ns of started.splice(0)) await ns.stop();
});
afterAll(cleanup);

nameserverContract('FakeNameserver', async () => {
  const ns = new FakeNameserver();
  await ns.start();
  return {
    ns,
    // The fake's zones are its memory, which a restart keeps, as knotd keeps its files and journal.
    restart: async () => {
      await ns.stop();
      await ns.start();
      return ns;
    },
  };
});

nameserverContract('Knot DNS', async () => {
  const dir = tempDir('hostplane-contract-');
  const knot = async (zones: Parameters<KnotNameserver['start']>[0]): Promise<KnotNameserver> => {
    const ns = createKnotNameserver({ dir: join(dir, 'knot'), zonesDir: join(dir, 'zones'), listen: `127.0.0.1:${await freePort()}` });
    started.push(ns);
    await ns.start(zones);
    return ns;
  };
  const ns = await knot([]);
  return {
    ns,
    restart: async (zones) => {
      await ns.stop();
      return knot(zones);
    },
  };
}, hasKnot() ? {} : { skip: 'knotd is not installed (apt-get install knot knot-dnsutils)' });
