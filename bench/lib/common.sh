# Helpers for bench/run.sh: logging, processes started by PID, /proc readings, small statistics.
# Sourced, not run. Expects TMP to be set before any process is started.

log() { echo "[bench $(date +%H:%M:%S)] $*" >&2; }
die() { echo "bench: $*" >&2; exit 2; }

# ---------------------------------------------------------------- processes we started, by PID
declare -A PIDS=()   # name -> pid of every long-running process this script started

stop_pid() { # stop one process we started, by PID: TERM, then KILL after 5 s
  local pid=$1
  [[ -n $pid ]] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  wait "$pid" 2>/dev/null || true
}

bg_start() { # name logfile command... : start in the background, remember the PID under name
  local name=$1 logf=$2; shift 2
  "$@" >"$logf" 2>&1 </dev/null &
  PIDS[$name]=$!
}

bg_stop() { # name
  local name=$1
  [[ -n ${PIDS[$name]:-} ]] || return 0
  stop_pid "${PIDS[$name]}"
  unset "PIDS[$name]"
}

bg_alive() { [[ -n ${PIDS[$1]:-} ]] && kill -0 "${PIDS[$1]}" 2>/dev/null; }

stop_all() {
  local n
  for n in "${!PIDS[@]}"; do bg_stop "$n"; done
}

# Every long-running process is one we started and remember by PID; load generators and curl run
# in the foreground under `timeout`. On exit (normal, error, Ctrl-C, TERM) all are stopped.
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [[ -n ${LOAD_PID:-} ]] && stop_pid "$LOAD_PID"
  stop_all
  if [[ -n ${TMP:-} && -d $TMP ]]; then
    if [[ ${KEEP_TMP:-0} == 1 ]]; then log "kept $TMP"; else rm -rf "$TMP"; fi
  fi
  exit "$rc"
}

await_answers() { # URL... : until each answers 2xx (https unchecked), 10 s each; else its logs in $TMP and exit 1
  local url
  for url in "$@"; do
    for _ in $(seq 200); do curl -fsk -o /dev/null "$url" && continue 2; sleep 0.05; done
    echo "nothing answered at $url:" >&2; tail -5 "$TMP"/*.log >&2; exit 1
  done
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() { # name port timeout-s : until the port accepts, the process dies, or the time is up
  local name=$1 port=$2 limit=$3 t0
  t0=$(now_ns)
  while ! port_open "$port"; do
    bg_alive "$name" || { WAIT_MSG="$name exited at start"; return 1; }
    (( ($(now_ns) - t0) / 1000000 < limit * 1000 )) || { WAIT_MSG="$name: port $port not open after ${limit}s"; return 1; }
    sleep 0.02
  done
}

# ---------------------------------------------------------------- templates
# render SRC DST [KEY=VALUE...]: replace @KEY@ by the pairs in RENDER_VARS (an array) and the extra
# pairs; refuse to leave a placeholder behind.
render() {
  local src=$1 dst=$2; shift 2
  local args=() kv k v
  for kv in "$@" "${RENDER_VARS[@]}"; do  # the extra pairs first: they win
    k=${kv%%=*}; v=${kv#*=}
    v=${v//\\/\\\\}; v=${v//&/\\&}; v=${v//#/\\#}
    args+=(-e "s#@${k}@#${v}#g")
  done
  sed "${args[@]}" "$src" >"$dst"
  if grep -n '@[A-Z][A-Z_]*@' "$dst" >&2; then die "$src: placeholder left after rendering (above)"; fi
}

# ---------------------------------------------------------------- /proc readings
now_ns() { date +%s%N; }
CLK_TCK=$(getconf CLK_TCK)

proc_ticks() { # utime+stime of a whole process (all threads) in clock ticks; 0 when gone
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  s=${s##*) }  # drop "pid (comm) "; fields now start at field 3 (state)
  awk '{print $12 + $13}' <<<"$s"
}
wrk_turn() { # wrk_turn PID URL [WRK ARGS...]: "CPU-us-per-request requests" of PID over one wrk run of SECS s,
  # CONNS connections, on CLIENT_CPU: one turn of the side-by-side scripts (ab.sh and those written like it)
  local pid=$1 url=$2 t0 t1 reqs
  shift 2
  t0=$(proc_ticks "$pid")
  reqs=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${SECS}s" "$@" "$url" | awk '/requests in/ {print $1}')
  t1=$(proc_ticks "$pid")
  awk -v d=$((t1 - t0)) -v n="$reqs" -v hz="$CLK_TCK" 'BEGIN {printf "%.3f %d", d * 1e6 / hz / n, n}'
}
median() { # the median of the numbers on stdin, one per line
  sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
pids_ticks() { # sum of proc_ticks over the given PIDs
  local t=0 p
  for p in "$@"; do t=$((t + $(proc_ticks "$p"))); done
  echo "$t"
}
children_of() { # direct children of a PID (from /proc, no process names involved)
  # cat, not awk on the files: a process may end between the glob and the read.
  cat /proc/[0-9]*/stat 2>/dev/null |
    awk -v want="$1" '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); if (f[2] == want) print $1 }' || true
}
sys_busy_ticks() { # "busy softirq": ticks over all CPUs in user, nice, system and steal; and in irq+softirq.
  # This kernel accounts interrupt time by the tick (no CONFIG_IRQ_TIME_ACCOUNTING here): a tick that
  # lands in a softirq (loopback TCP receive work, mostly ours) is charged to no process, so it is kept
  # apart from "foreign" work.
  awk '/^cpu /{print $2 + $3 + $4 + $9, $7 + $8; exit}' /proc/stat
}
CHILD_MS=0
children_ms() { # sets CHILD_MS: CPU (user+sys) of this shell's reaped children so far, in ms.
  # Not usable as $(...): a subshell has no reaped children of its own.
  times >"$TMP/times"
  CHILD_MS=$(awk 'NR==2 { t = 0
      for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
      printf "%d\n", t * 1000 }' "$TMP/times")
}
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status" 2>/dev/null || true; }

# ---------------------------------------------------------------- formatting (statistics: report.sh)
lat_us() { # "460.00us" / "1.07ms" / "2.00s" -> microseconds
  awk -v v="$1" 'BEGIN{ n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
    if (u == "ms") n *= 1000; else if (u == "s") n *= 1000000; else if (u == "m") n *= 60000000
    printf "%.0f\n", n }'
}
fmt_lat() { awk -v u="$1" 'BEGIN{ if (u == "-" || u == "") print "-"; else if (u >= 1000) printf "%.2f ms", u / 1000; else printf "%.0f us", u }'; }
mib() { [[ -n ${1:-} && ${1:-} != "-" ]] && awk -v k="$1" 'BEGIN{printf "%.1f", k / 1024}' || echo "-"; }
oneline() { # stdin as one line of at most N characters, without "|" (for table cells and CSV fields).
  # Reads all its input: a reader that stops early would make the writer fail under pipefail.
  awk -v n="${1:-300}" '{ gsub(/[|\r]/, " "); s = s (NR > 1 ? " " : "") $0 } END { gsub(/[ \t]+/, " ", s); print substr(s, 1, n) }'
}
