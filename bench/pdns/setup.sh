#!/usr/bin/env bash
# Installs PowerDNS Authoritative with its SQLite backend (Debian packages), the peer bench/dns.ts measures
# hostplane against. Idempotent: does nothing when pdns_server and the gsqlite3 schema are already there.
# Needs root (or sudo). The packaged service is not started here; bench/dns.ts runs pdns_server itself as a
# child process with a config in a temp dir, on loopback.
set -euo pipefail
have_schema() { dpkg -L pdns-backend-sqlite3 2>/dev/null | grep -q 'schema\.sqlite3\.sql'; }
if { command -v pdns_server >/dev/null || [ -x /usr/sbin/pdns_server ]; } && have_schema; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# (In containers a policy-rc.d that exits 101 keeps the package scripts from starting a system-wide pdns.)
$SUDO apt-get install -y -qq --no-install-recommends pdns-server pdns-backend-sqlite3 </dev/null
