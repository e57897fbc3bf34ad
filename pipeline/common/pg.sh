#!/usr/bin/env bash
# The pipeline's private PostgreSQL cluster: unix socket only, no TCP port.
#
#   pipeline/common/pg.sh start DIR   initdb DIR if needed, start it, print the
#                              connection string on stdout
#   pipeline/common/pg.sh stop DIR    stop it (no error if it is not running)
#   pipeline/common/pg.sh run DIR CMD ARGS...
#                              start it if needed, run CMD ARGS --pgurl URL,
#                              then stop it unless another `run` still uses it
#
# `run` is the one way the Makefile's stages use the cluster: starting,
# stopping and the list of users (DIR/users/<pid>) change only under an
# exclusive flock on DIR/lock, so `make -j2 collect ap` shares one server
# instead of racing to start or stop it.  A user that died (kill -9) is
# noticed by its pid no longer running, so the server is not left up for it.
#
# As root the server runs as the `postgres` user, which must be able to
# traverse every parent folder of DIR; when it cannot (a checkout under a
# mode-700 folder), the cluster lives in a fresh `mktemp -d` folder instead,
# and DIR/location names it.  A unix socket path must stay under 107 bytes:
# the socket goes into a short folder under /tmp when DIR is too long.
set -euo pipefail
cmd=${1:-}; dir=${2:-}
[[ -n $cmd && -n $dir ]] || { echo "usage: pg.sh start|stop|run DIR [CMD ARGS...]" >&2; exit 2; }
bin=/usr/lib/postgresql/15/bin
[[ -x $bin/initdb ]] || { echo "pg.sh: $bin/initdb not found: run make deps (postgresql 15)" >&2; exit 1; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Where the cluster lives.
if [[ -f $dir/location ]]; then
  data=$(cat "$dir/location")
else
  data=$dir/data
  if [[ $(id -u) -eq 0 ]] && ! runuser -u postgres -- test -x "$dir"; then
    data=$(mktemp -d /tmp/labpg.XXXXXX)/data
    echo "$data" > "$dir/location"
    echo "pg.sh: the postgres user cannot reach $dir; the cluster lives in $data" >&2
  fi
fi
sock=$(dirname "$data")/sock
if (( ${#sock} > 90 )); then
  [[ -f $dir/sockdir ]] || mktemp -d /tmp/labpgs.XXXXXX > "$dir/sockdir"
  sock=$(cat "$dir/sockdir")
fi

do_start() {
  mkdir -p "$sock"
  if [[ $(id -u) -eq 0 ]]; then chown postgres "$sock" "$(dirname "$data")"; fi
  if [[ ! -f $data/PG_VERSION ]]; then
    rm -rf "$data"; mkdir -p "$data"
    [[ $(id -u) -eq 0 ]] && chown postgres "$data"
    as_owner "$bin/initdb" -D "$data" -U postgres -A trust --no-sync -E UTF8 --locale=C >/dev/null
  fi
  if ! as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_owner "$bin/pg_ctl" -D "$data" -w -s -l "$(dirname "$data")/server.log" \
      -o "-c listen_addresses='' -c unix_socket_directories='$sock' -c fsync=off -c full_page_writes=off" start \
      || { echo "pg.sh: the server did not start; see $(dirname "$data")/server.log" >&2; return 1; }
  fi
  echo "host=$sock dbname=postgres user=postgres"
}

do_stop() {
  if [[ -f $data/PG_VERSION ]] && as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_owner "$bin/pg_ctl" -D "$data" -w -s -m fast stop
  fi
}

# Users still alive, after forgetting the dead ones.
live_users() {
  local n=0 f
  for f in "$dir"/users/*; do
    [[ -e $f ]] || continue
    if kill -0 "${f##*/}" 2>/dev/null; then n=$((n + 1)); else rm -f "$f"; fi
  done
  echo $n
}

case $cmd in
start) do_start ;;
stop) do_stop ;;
run)
  shift 2
  (( $# > 0 )) || { echo "usage: pg.sh run DIR CMD ARGS..." >&2; exit 2; }
  mkdir -p "$dir/users"
  exec 9>"$dir/lock"
  flock 9
  url=$(do_start) || exit 1
  touch "$dir/users/$$"
  flock -u 9
  set +e
  "$@" --pgurl "$url"
  rc=$?
  set -e
  flock 9
  rm -f "$dir/users/$$"
  if [[ $(live_users) -eq 0 ]]; then do_stop; fi
  flock -u 9
  exit $rc
  ;;
*) echo "usage: pg.sh start|stop|run DIR [CMD ARGS...]" >&2; exit 2 ;;
esac
