/** Pure zone-file functions: names, rrset validation, rendering, parsing and SOA serials. No I/O. */
export * from './model';
export { MAX_PROBLEM_CHARS, ZoneValidationError, type Issue } from './errors';
export { checkZoneName, isZoneName, MAX_ZONE_NAME_LENGTH, normalizeName, normalizeHostname, normalizeZoneName, isInZone, relativeName, resolveOwner } from './names';
export {
  validateRRset,
  aliasConflict,
  checkCnameConflict,
  dsWithoutDelegation,
  canonicalRecordKey,
  compareRecords,
  MIN_TTL,
  MAX_TTL,
  MAX_RECORDS,
  MAX_TXT_BYTES,
} from './validate';
export { absoluteLines, absoluteSoaLine, exportHead, exportLines, exportZoneFile, renderZone, renderRecordData, renderedBytes, rrsetKey } from './render';
export { MAX_ZONE_FILE_BYTES, parseZone, parseZoneFile, type ZoneFile } from './parse';
export { importChanges, type CurrentRRset, type ImportMode, type ZoneChange } from './import';
export { nextSerial, SERIAL_HALF, serialGreater } from './serial';
export {
  aliasAnswer, aliasTtl, isPublicAddress, sameAnswer, servedRRsets, servedTypes, ALIAS_MAX_TTL, ALIAS_MIN_CHANGE, ALIAS_MIN_TTL, MAX_ALIAS_ADDRESSES, MAX_ALIASES_PER_ZONE, type AliasAnswer,
} from './alias';
export {
  answerBytes,
  answerReserveBytes,
  maxTxtValueBytes,
  nameBytes,
  rdataBytes,
  recordBytes,
  EDNS_OPTION_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_RDATA_BYTES,
  SIGNATURE_BYTES,
  SIGNATURES_PER_RRSET,
  type AnswerBytes,
} from './wire';
