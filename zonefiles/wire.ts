/**
 * Wire sizes (RFC 1035 4.1) of records and of the answers that carry them, so that data no DNS message can
 * hold is refused before it reaches the nameserver. Pure functions over canonical record contents, as
 * {@link validateRRset} returns them.
 */
import type { RecordType, RRset } from './model';
import { fieldsRdataBytes } from './rdata';

/** One DNS message: over TCP its length is a two-octet field (RFC 1035 4.2.2), and UDP carries less. */
export const MAX_MESSAGE_BYTES = 65_535;
/** One record's RDATA: RDLENGTH is a two-octet field (RFC 1035 3.2.1). */
export const MAX_RDATA_BYTES = 65_535;
/**
 * Room for one signature in an RRSIG: 512 octets, an RSA signature with a 4096-bit key, the largest of
 * the algorithms in use. Our policy signs with ECDSA P-256 (64 octets), but a zone signed later may be
 * signed under another policy, and nothing may have to be refused then.
 */
export const SIGNATURE_BYTES = 512;
/** RRSIGs per rrset: two during an algorithm rollover (RFC 6781 4.1.4), when both algorithms sign. */
export const SIGNATURES_PER_RRSET = 2;
/** Room for EDNS options in the answer's OPT record: a server cookie (44), NSID, client subnet (≤ 24),
 * extended errors. Padding is only added where there is room for it. */
export const EDNS_OPTION_BYTES = 512;

const HEADER_BYTES = 12;
/** The longest name (RFC 1035 2.3.4). */
const MAX_NAME_BYTES = 255;
/** TYPE, CLASS, TTL and RDLENGTH of a resource record. */
const RR_FIXED_BYTES = 10;
/** A compressed owner: a pointer to a name earlier in the message (RFC 1035 4.1.4). */
const POINTER_BYTES = 2;
/** RRSIG RDATA before the signer's name: type covered, algorithm, labels, original TTL, expiration,
 * inception, key tag (RFC 4034 3.1). */
const RRSIG_FIXED_BYTES = 18;
/** An NSEC type bitmap covering every type of windows 0 and 1 (RFC 4034 4.1.2): the types we serve
 * (CAA is 257) and the DNSSEC ones. */
const NSEC_BITMAP_BYTES = 2 * (2 + 32);
/** The OPT pseudo-record without options: root owner, TYPE, CLASS (payload size), TTL (flags), RDLENGTH. */
const OPT_FIXED_BYTES = 11;
/** Longest character-string in RDATA (RFC 1035 3.3); render.ts splits TXT values the same way. */
const MAX_STRING_BYTES = 255;

/** Wire length of a name in the model's form (absolute, no trailing dot, ASCII) or `.`, the root. */
export function nameBytes(name: string): number {
  return name === '.' ? 1 : name.length + 2;
}

/** TXT RDATA of a value: its UTF-8 bytes in strings of at most 255, each with its length octet. */
function txtBytes(text: string): number {
  const n = Buffer.byteLength(text, 'utf8');
  return n === 0 ? 1 : n + Math.ceil(n / MAX_STRING_BYTES);
}

/** RDLENGTH of a canonical record content, with names in RDATA uncompressed (which a server may shorten). */
export function rdataBytes(type: RecordType, content: string): number {
  switch (type) {
    case 'A':
      return 4;
    case 'AAAA':
      return 16;
    case 'ALIAS':
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return nameBytes(content);
    case 'MX':
      return 2 + nameBytes(content.slice(content.indexOf(' ') + 1));
    case 'SRV':
      return 6 + nameBytes(content.slice(content.lastIndexOf(' ') + 1));
    case 'TXT':
      return txtBytes(content);
    case 'CAA': {
      // `<flags> <tag> "<value>"`: flags and tag length octets, the tag, the value (printable ASCII).
      const afterFlags = content.indexOf(' ') + 1;
      const afterTag = content.indexOf(' ', afterFlags);
      return 2 + (afterTag - afterFlags) + (content.length - afterTag - 3);
    }
    default:
      return fieldsRdataBytes(type, content);
  }
}

/** One record in an answer, its owner compressed against the question: pointer, fixed fields, RDATA. */
export function recordBytes(type: RecordType, content: string): number {
  return POINTER_BYTES + RR_FIXED_BYTES + rdataBytes(type, content);
}

/** The RRSIGs over one rrset: owner pointer, fixed fields, RRSIG RDATA with the zone as signer. */
function signaturesBytes(zone: string): number {
  return SIGNATURES_PER_RRSET * (POINTER_BYTES + RR_FIXED_BYTES + RRSIG_FIXED_BYTES + nameBytes(zone) + SIGNATURE_BYTES);
}

/**
 * What an answer holds besides the rrset's own records, at most, in a zone signed now or later:
 * - the header, and a question of the longest name: a name matched by a wildcard owner, or an alias;
 * - the rrset's RRSIGs;
 * - one CNAME in front of it with its RRSIGs (a query for an alias: knotd follows the CNAME inside the zone
 *   and answers SERVFAIL when the target does not fit beside it);
 * - one NSEC with its RRSIGs, the proof a wildcard answer carries (knotd sets TC when it does not fit);
 * - an OPT record with room for options.
 * Longer CNAME chains inside the zone are not counted. Additional records (addresses of MX, SRV and NS
 * targets) are not either: knotd leaves them out when they do not fit.
 */
export function answerReserveBytes(zone: string): number {
  const signatures = signaturesBytes(zone);
  const question = MAX_NAME_BYTES + 4;
  const cname = POINTER_BYTES + RR_FIXED_BYTES + MAX_NAME_BYTES + signatures;
  const nsec = MAX_NAME_BYTES + RR_FIXED_BYTES + MAX_NAME_BYTES + NSEC_BITMAP_BYTES + signatures;
  return HEADER_BYTES + question + signatures + cname + nsec + OPT_FIXED_BYTES + EDNS_OPTION_BYTES;
}

export interface AnswerBytes {
  /** The answer to a query for the owner, unsigned and without EDNS: header, question, records. Exact,
   * unless the server compresses names in RDATA (knotd does for CNAME, NS, PTR, MX and SRV). */
  unsigned: number;
  /** The most the rrset can need in any answer: its records and {@link answerReserveBytes}. It must not
   * exceed {@link MAX_MESSAGE_BYTES}. */
  worstCase: number;
  /** The rrset in DNSSEC canonical form (RFC 4034 3.1.8.1), what a signer hashes: every record with its
   * full owner. knotd builds it in one buffer of {@link MAX_MESSAGE_BYTES} and cannot sign the zone beyond
   * (measured: 245 records at a 253-octet owner sign, 246 do not), so many records at a long name are
   * limited by this rather than by the answer, whose owners are compressed. */
  signedData: number;
}

/** Sizes of the canonical `rrset` of `zone` in the answers that carry it, and in the form DNSSEC signs. */
export function answerBytes(zone: string, rrset: RRset): AnswerBytes {
  const records = rrset.records.reduce((n, r) => n + recordBytes(rrset.type, r.content), 0);
  const owners = rrset.records.length * (nameBytes(rrset.name) - POINTER_BYTES);
  return {
    unsigned: HEADER_BYTES + nameBytes(rrset.name) + 4 + records,
    worstCase: answerReserveBytes(zone) + records,
    signedData: records + owners,
  };
}

/** The longest TXT value (UTF-8 bytes) whose record alone fits an answer of `zone` by {@link answerBytes}. */
export function maxTxtValueBytes(zone: string): number {
  const rdata = MAX_MESSAGE_BYTES - answerReserveBytes(zone) - POINTER_BYTES - RR_FIXED_BYTES;
  // Every full string of 255 bytes costs 256 octets; a last, shorter one costs one octet more than its bytes.
  return rdata - Math.ceil(rdata / (MAX_STRING_BYTES + 1));
}
