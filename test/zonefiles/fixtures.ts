import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CurrentRRset, RRset, ZoneSpec } from '../../zonefiles';

const dir = fileURLToPath(new URL('../fixtures/zones/', import.meta.url));

/** Scenario names of the ZoneSpec fixtures in test/fixtures/zones (file names without `.json`). */
export const fixtureNames: string[] = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();

/** One fixture as written; the render test checks that it is canonical. */
export function loadFixture(name: string): ZoneSpec {
  return JSON.parse(readFileSync(`${dir}${name}.json`, 'utf8')) as ZoneSpec;
}

/** SOA shared by tests that build zones in code. */
export const testSoa: ZoneSpec['soa'] = {
  mname: 'ns1.hostplane.net',
  rname: 'hostmaster.hostplane.net',
  serial: 2024010100,
  refresh: 7200,
  retry: 3600,
  expire: 1209600,
  minimum: 300,
  ttl: 3600,
};

/** An rrset as importChanges reads the zone's: its records as the stored JSON text. */
export const asStored = (r: RRset): Omit<CurrentRRset, 'managedBy'> => ({ name: r.name, type: r.type, ttl: r.ttl, recordsJson: JSON.stringify(r.records) });
