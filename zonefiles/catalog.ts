/**
 * The catalog zone (RFC 9432, version 2) secondaries learn the zone set from. Pure: the member labels come from the
 * zones' lifetimes in the store, so every leader's nameserver serves the same member under the same label.
 */
import { createHash } from 'node:crypto';

/** A member zone: its name and the lifetime (`uid`) it belongs to. */
export interface CatalogMember {
  zone: string;
  uid: string;
}

export interface Catalog {
  /** The catalog zone's own name, without the trailing dot. */
  name: string;
  serial: number;
  members: CatalogMember[];
}

/**
 * A member's unique label (RFC 9432 4.1): derived from the zone's lifetime alone, so it is the same whichever process
 * renders it (a label that changed would tell a secondary the member was removed and added again, and it would drop
 * its copy: 5.5), and a zone deleted and created again gets another (its copy must go, its keys changed). 64 bits of a
 * hash of a random UUID: two members sharing one would take billions of zones.
 */
export function catalogLabel(uid: string): string {
  return createHash('sha256').update(uid).digest('hex').slice(0, 16);
}

/**
 * The catalog's zone text: the SOA and NS RFC 9432 4.1 asks for (`invalid.`, never queried), `version` 2, and one PTR
 * per member, sorted by zone name so that the same members always render the same text. TTL 0 (4.1). The SOA's expire
 * is the largest RFC 1982 allows: a secondary that lost every primary for a while must not expire the catalog and
 * drop every member with it.
 */
export function renderCatalog(c: Catalog): string {
  const origin = `${c.name}.`;
  const lines = [
    `${origin} 0 IN SOA invalid. invalid. ${c.serial} 3600 600 2147483646 0`,
    `${origin} 0 IN NS invalid.`,
    `version.${origin} 0 IN TXT "2"`,
  ];
  const members = [...c.members].sort((a, b) => (a.zone < b.zone ? -1 : a.zone > b.zone ? 1 : 0));
  for (const m of members) lines.push(`${catalogLabel(m.uid)}.zones.${origin} 0 IN PTR ${m.zone}.`);
  return `${lines.join('\n')}\n`;
}
