/** Writes of a domain row that raise its generation from what they read (a caller's auto-renew, the registrar's
 * facts from the domain reconciler) count every change, also when they run at once on PostgreSQL. */
import { describe, expect, it } from 'vitest';
import { createOrg } from '../../store/accounts';
import { importDomainRow, recordRegistrarFacts, setAutoRenew } from '../../store/domains';
import { domains } from '../../store/schema';
import { openTestStore } from '../helpers/store';

const NAME = 'customer.test';

describe('the generation of a domain', () => {
  it('rises once per change when a caller and the reconciler change the domain at once', async () => {
    const s = await openTestStore(':memory:');
    try {
      const { id: orgId } = await createOrg(s, 'acme', 'free');
      const { domain } = await importDomainRow(s, { orgId, name: NAME, nameservers: [], actor: 't' });
      const rounds = 5;
      for (let i = 0; i < rounds; i++) {
        // Reads at once first, as a loaded server has: on PostgreSQL both writes then start on an open connection.
        await Promise.all([s.db.select().from(domains), s.db.select().from(domains)]);
        await Promise.all([
          setAutoRenew(s, { orgId, name: NAME, autoRenew: i % 2 === 0, actor: 't' }),
          recordRegistrarFacts(s, NAME, domain.uid, { delegation: [`ns${i}.example.net`] }),
        ]);
      }
      const [row] = await s.db.select().from(domains);
      expect(row!.generation).toBe(domain.generation + 2 * rounds);
    } finally {
      s.close();
    }
  });
});
