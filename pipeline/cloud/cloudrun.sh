#!/usr/bin/env bash
# The far side of `make cloud-start` (pipeline/cloud/cloud.sh): runs on the rented
# machine, in the lab's folder there, detached from any ssh session (cloud.sh
# starts it with setsid and nohup, its input from /dev/null), so a dropped
# connection does not stop the measurement.
#
# It runs `make measure` with the settings in its environment (PROFILE,
# GATE, and for the tests QUIET and MEASURE_FLAGS) and turns each of
# measure's progress lines into one line
#
#   LAB-PROGRESS 2026-12-01T13:00:00Z run 3 of 18  H3-dl round 1  elapsed 0:03  left ~0:40
#
# written to the serial console, where the cloud's API shows it without a
# login (`make cloud-status`), and appended to build/cloud-run/progress.log.
# The console: $LAB_CONSOLE when set (the tests' fake machine points it at a
# file), else the first of /dev/ttyS0, /dev/ttyAMA0, /dev/console this user
# can write (directly, or through `sudo -n`), else none (the file only).
#
# build/cloud-run/ holds pid (this script's), measure.log (measure's whole
# output), progress.log, and rc (measure's exit code) once it has ended;
# the last progress line is "LAB-PROGRESS <UTC> done exit <rc>" (4: refused,
# the tester's priority could not be set).
#
# With several machines cloud.sh runs it here instead (the split schedule:
# SPLIT_HOSTS and SPLIT_OUT in its environment are make measure's HOST and OUT, its folder is
# CLOUD_RUN_DIR, LAB_CONSOLE=none).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
run=${CLOUD_RUN_DIR:-build/cloud-run}
mkdir -p "$run"
rm -f "$run/rc"
echo $$ > "$run/pid"

pick_console() {
  if [[ -n ${LAB_CONSOLE:-} ]]; then echo "$LAB_CONSOLE"; return; fi
  local d
  for d in /dev/ttyS0 /dev/ttyAMA0 /dev/console; do
    if [[ -c $d && -w $d ]]; then echo "$d"; return; fi
  done
  if sudo -n true 2>/dev/null; then
    for d in /dev/ttyS0 /dev/ttyAMA0 /dev/console; do
      if [[ -c $d ]]; then echo "sudo:$d"; return; fi
    done
  fi
  echo none
}
console=$(pick_console)

say() {
  local line
  line="LAB-PROGRESS $(date -u +%Y-%m-%dT%H:%M:%SZ) $*"
  echo "$line" >> "$run/progress.log"
  case $console in
    none) ;;
    sudo:*) printf '%s\r\n' "$line" | sudo -n tee -a "${console#sudo:}" > /dev/null 2>&1 || true ;;
    *) printf '%s\r\n' "$line" >> "$console" 2> /dev/null || true ;;
  esac
}

args=(PROFILE="${PROFILE:-full}" GATE="${GATE:-1}")
[[ -n ${QUIET:-} ]] && args+=(QUIET="$QUIET")
[[ -n ${MEASURE_FLAGS:-} ]] && args+=(MEASURE_FLAGS="$MEASURE_FLAGS")
[[ -n ${SPLIT_HOSTS:-} ]] && args+=(HOST="$SPLIT_HOSTS")
[[ -n ${SPLIT_OUT:-} ]] && args+=(OUT="$SPLIT_OUT")
say "start profile ${PROFILE:-full} console ${console#sudo:}"
# On the rented machine the tester runs at nice -10 (run --tester-nice):
# refused, loudly, when this user may not lower its priority that far (not
# root, RLIMIT_NICE below 30, build/bin/run without cap_sys_nice: make
# cloud-setup gives one of them), rather than measuring at another priority.
# The programs are built first: a relink of run would drop its capability.
# (Split: the far machines' own sessions.)
if [[ -z ${SPLIT_HOSTS:-} && $(id -u) != 0 ]]; then
  make --no-print-directory progs >> "$run/measure.log" 2>&1
  lim=$(ulimit -e)
  if [[ $lim != unlimited ]] && ((lim < 30)) && ! /sbin/getcap build/bin/run 2> /dev/null | grep -q cap_sys_nice; then
    echo "cloudrun: the tester's priority (nice -10) cannot be set: $(id -un) is not root, its limit" \
      "(ulimit -e) is $lim, not 30, and build/bin/run lacks cap_sys_nice; make cloud-setup gives it one" |
      tee -a "$run/measure.log" >&2
    say "refused: nice -10 not allowed (ulimit -e $lim)"
    say "done exit 4"
    echo 4 > "$run/rc.tmp" && mv "$run/rc.tmp" "$run/rc"
    rm -f "$run/pid"
    exit 4
  fi
fi
# measure rewrites its progress line in place only on a terminal (a \r
# would end a line there: the text after the last one is kept).
make --no-print-directory measure "${args[@]}" 2>&1 | while IFS= read -r line; do
  line=${line##*$'\r'}
  printf '%s\n' "$line" >> "$run/measure.log"
  case $line in
    "measure: run "*) say "${line#measure: }" ;;
  esac
done
rc=${PIPESTATUS[0]}
say "done exit $rc"
echo "$rc" > "$run/rc.tmp" && mv "$run/rc.tmp" "$run/rc"
rm -f "$run/pid"
