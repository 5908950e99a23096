#!/usr/bin/env bash
# Starts, on this machine and on loopback only, what docs/deployment.md describes on three machines: one PostgreSQL
# cluster in a temp dir and three `hostplane serve` on it, sharing one sealing key file. It prints each process's
# URLs, then stays in the foreground; Ctrl-C (or SIGTERM to this script) stops the three (the leader resigns), then
# PostgreSQL, and removes the temp dir. For trying leader election and failover, not for production.
#
#   scripts/cluster.sh [--port BASE] [--pg-port PORT] [--dir DIR] [--keep]
#
# --port BASE   the three APIs listen on BASE, BASE+1 and BASE+2 (default 8081), their metrics on 9465..9467 and
#               their knotd on 8054..8056; 0 lets each process pick free ports (read them from the printed lines)
# --pg-port N   PostgreSQL's loopback port (default 55432)
# --dir DIR     where everything lives (default a new temp dir); --keep leaves it behind at the stop
set -euo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
hostplane="$here/bin/hostplane"
base=8081
pg_port=55432
dir=""
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --port) base="$2"; shift 2 ;;
    --pg-port) pg_port="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "cluster.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
  echo "cluster.sh: PostgreSQL's server programs are not under /usr/lib/postgresql (Debian package postgresql)" >&2
  exit 1
fi
[ -n "$dir" ] || dir="$(mktemp -d /tmp/hostplane-cluster-XXXXXX)"
mkdir -p "$dir"
# PostgreSQL refuses to run as root: there it runs as the postgres user, which must reach its directory.
as_pg=()
if [ "$(id -u)" = 0 ]; then
  as_pg=(runuser -u postgres --)
  chmod 0711 "$dir"
  mkdir -p "$dir/pg"
  chown postgres: "$dir/pg"
fi

pids=()
stop() {
  trap - INT TERM EXIT
  echo "stopping the three serve processes, then PostgreSQL" >&2
  [ ${#pids[@]} -eq 0 ] || kill -TERM "${pids[@]}" 2>/dev/null || true
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  [ ! -f "$dir/pg/data/postmaster.pid" ] || "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null || true
  if [ "$keep" = 1 ]; then echo "left $dir" >&2; else rm -rf "$dir"; fi
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${as_pg[@]}" "$pg_bin/initdb" -D "$dir/pg/data" -U hostplane -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
"${as_pg[@]}" "$pg_bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/postgres.log" -w \
  -o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories='$dir/pg'" start >/dev/null \
  || { cat "$dir/pg/postgres.log" >&2; exit 1; }
"${as_pg[@]}" "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U hostplane hostplane
url="postgres://hostplane@127.0.0.1:$pg_port/hostplane"

# Each serve's flags: distinct ports, a data dir of its own (knotd, the data-dir lock), the one key file.
port_of() { if [ "$base" = 0 ]; then echo 0; else echo $(($1 + $2)); fi; }
dns_flags() {
  if command -v knotd >/dev/null 2>&1 || [ -x /usr/sbin/knotd ]; then echo "--dns-listen 127.0.0.1:$(port_of 8054 "$1")"; else echo "--dns off"; fi
}
for i in 0 1 2; do
  name="serve-$((i + 1))"
  # shellcheck disable=SC2046 # dns_flags is two words on purpose
  "$hostplane" serve --data "$dir/$name" --port "$(port_of "$base" "$i")" --metrics-listen "127.0.0.1:$(port_of 9465 "$i")" \
    $(dns_flags "$i") --database-url "$url" --sealing-key "$dir/sealing.key" >"$dir/$name.out" 2>"$dir/$name.log" &
  pids+=("$!")
  # One at a time: the first one creates the schema and the sealing key file that the others are given.
  for _ in $(seq 600); do
    [ ! -s "$dir/$name.out" ] || break
    if ! kill -0 "${pids[$i]}" 2>/dev/null; then echo "cluster.sh: $name did not start:" >&2; tail -n 5 "$dir/$name.log" >&2; exit 1; fi
    sleep 0.1
  done
  [ -s "$dir/$name.out" ] || { echo "cluster.sh: $name printed no listening line within 60 s; its log: $dir/$name.log" >&2; exit 1; }
  echo "$name: $(head -n 1 "$dir/$name.out")"
done

cat <<EOF
PostgreSQL: $url (data and log under $dir/pg)
each serve's logs: $dir/serve-N.log
who leads:  $hostplane admin --data $dir/admin --database-url $url status
try:        kill -STOP or kill -9 the leader's pid (pids ${pids[*]}), and watch another take over
stop:       Ctrl-C here, or kill $$
EOF
wait
