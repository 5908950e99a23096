/** Pure zone-file functions: names, rrset validation, rendering, parsing and SOA serials. No I/O. */
export * from './model';
export { ZoneValidationError, type Issue } from './errors';
export { normalizeName, normalizeHostname, isInZone, relativeName, resolveOwner } from './names';
export {
  validateRRset,
  checkCnameConflict,
  canonicalRecordKey,
  compareRecords,
  MIN_TTL,
  MAX_TTL,
  MAX_RECORDS,
  MAX_TXT_BYTES,
} from './validate';
export { renderZone, renderRecordData, ZoneImage } from './render';
export { parseZone } from './parse';
export { nextSerial } from './serial';
