#!/usr/bin/env bash
# Quick side-by-side benchmark: nginx vs Strait, scenarios "respond" and "static-small".
# See bench/README.md. Method: /work/shared/BENCHMARKING.md (server on CPU 0, wrk on CPU 1,
# one worker each, interleaved rounds, medians, server CPU microseconds per request).
set -euo pipefail

ROUNDS=${ROUNDS:-3}              # measured rounds per cell
SECS=${SECS:-8}                  # seconds per measured run
WARMUP=${WARMUP:-10}             # seconds of unmeasured load on Strait per scenario (nginx: 1 s)
CONNS=${CONNS:-64}               # wrk connections (wrk -t1)
NGINX_PORT=${NGINX_PORT:-18081}
STRAIT_PORT=${STRAIT_PORT:-18080}
STRAIT_ADMIN_PORT=${STRAIT_ADMIN_PORT:-19901}
JAVA_OPTS=${JAVA_OPTS:-}         # extra JVM flags for Strait (default: none, plain java -jar)
STARTUP_TIMEOUT=${STARTUP_TIMEOUT:-30}   # seconds to wait for Strait's first /hello
IDLE_WAIT=${IDLE_WAIT:-3}        # seconds after the first /hello before reading idle RSS
BUILD_TIMEOUT=${BUILD_TIMEOUT:-900}
SCENARIOS=${SCENARIOS:-"respond static-small"}
SERVERS=${SERVERS:-"nginx strait"}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
FOREIGN_WARN=${FOREIGN_WARN:-10} # flag a round when foreign CPU exceeds this % of one core

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(dirname "$BENCH_DIR")
STRAIT_JAR=${STRAIT_JAR:-$ROOT_DIR/proxy/target/strait-proxy.jar}
RESULTS_DIR=$BENCH_DIR/results
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=$RESULTS_DIR/quick-$STAMP.md

for v in ROUNDS SECS WARMUP CONNS; do
  [[ ${!v} =~ ^[0-9]+$ ]] || { echo "quick.sh: $v must be a whole number (got '${!v}')" >&2; exit 2; }
done
(( ROUNDS >= 1 && SECS >= 1 && CONNS >= 1 )) || { echo "quick.sh: ROUNDS, SECS, CONNS must be >= 1" >&2; exit 2; }

log() { echo "[quick $(date +%H:%M:%S)] $*" >&2; }

# ---------------------------------------------------------------- processes and cleanup
TMP=$(mktemp -d /tmp/strait-bench.XXXXXX)
NGINX_PID=""
STRAIT_PID=""
WRK_PID=""

stop_pid() { # stop one process we started, by PID: TERM, then KILL after 5 s
  local pid=$1
  [[ -n $pid ]] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$WRK_PID"; WRK_PID=""
  stop_pid "$STRAIT_PID"; STRAIT_PID=""
  stop_pid "$NGINX_PID"; NGINX_PID=""
  if [[ ${KEEP_TMP:-0} == 1 ]]; then log "kept $TMP"; else rm -rf "$TMP"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- tools
ensure_tools() {
  local need=()
  command -v curl >/dev/null || need+=(curl)
  command -v wrk >/dev/null || need+=(wrk)
  command -v taskset >/dev/null || need+=(util-linux)
  [[ -n $(nginx_bin) ]] || need+=(nginx)
  ((${#need[@]} == 0)) && return 0
  log "installing missing packages: ${need[*]}"
  local sudo=""
  [[ $(id -u) == 0 ]] || sudo=sudo
  timeout 300 $sudo apt-get update -qq
  local p
  for p in "${need[@]}"; do
    if [[ $p == nginx ]]; then
      DEBIAN_FRONTEND=noninteractive timeout 300 $sudo apt-get install -y -qq nginx-light >/dev/null ||
        DEBIAN_FRONTEND=noninteractive timeout 300 $sudo apt-get install -y -qq nginx >/dev/null
    else
      DEBIAN_FRONTEND=noninteractive timeout 300 $sudo apt-get install -y -qq "$p" >/dev/null
    fi
  done
}
nginx_bin() { command -v nginx 2>/dev/null || { [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx; } || true; }

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---------------------------------------------------------------- small helpers
now_ns() { date +%s%N; }
proc_ticks() { # utime+stime of a whole process (all threads) in clock ticks
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  s=${s##*) }  # drop "pid (comm) "; fields now start at field 3 (state)
  awk '{print $12 + $13}' <<<"$s"
}
sys_busy_ticks() { # busy ticks over all CPUs: user nice system irq softirq steal
  awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat
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
mib() { [[ -n ${1:-} ]] && awk -v k="$1" 'BEGIN{printf "%.1f", k / 1024}' || echo "-"; }
median() { tr ' ' '\n' <<<"$*" | grep -v '^$' | sort -g |
  awk '{a[NR] = $1} END { if (NR == 0) { print "-"; exit }
       if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
minmax() { tr ' ' '\n' <<<"$*" | grep -v '^$' | sort -g | awk 'NR==1{lo=$1} {hi=$1} END{ if (NR) print lo, hi; else print "- -" }'; }
sum() { tr ' ' '\n' <<<"$*" | awk '{s += $1} END {print s + 0}'; }
max() { tr ' ' '\n' <<<"$*" | grep -v '^$' | sort -g | tail -1; }
fmt() { awk -v x="$1" -v f="$2" 'BEGIN{ if (x == "-" || x == "") print "-"; else printf f, x }'; }
lat_us() { # "460.00us" / "1.07ms" / "2.00s" -> microseconds
  awk -v v="$1" 'BEGIN{ n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
    if (u == "ms") n *= 1000; else if (u == "s") n *= 1000000; else if (u == "m") n *= 60000000
    printf "%.0f\n", n }'
}
fmt_lat() { awk -v u="$1" 'BEGIN{ if (u == "-" || u == "") print "-"; else if (u >= 1000) printf "%.2f ms", u / 1000; else printf "%.0f us", u }'; }

server_pid() { case $1 in nginx) echo "$NGINX_PID" ;; strait) echo "$STRAIT_PID" ;; esac; }
server_port() { case $1 in nginx) echo "$NGINX_PORT" ;; strait) echo "$STRAIT_PORT" ;; esac; }
scenario_path() { case $1 in respond) echo /hello ;; static-small) echo /hello.txt ;; *) echo "unknown scenario $1" >&2; return 1 ;; esac; }
scenario_body() { case $1 in respond) printf 'hello, world!\n' ;; static-small) printf 'hello, world\n' ;; esac; }

declare -A FAIL=()  # server -> reason it could not be measured at all

body_check() { # server scenario -> 0 if status 200 and exact body
  local srv=$1 sc=$2 code
  scenario_body "$sc" >"$TMP/expected"
  code=$(curl -sS -o "$TMP/got" -w '%{http_code}' --max-time 3 \
    "http://127.0.0.1:$(server_port "$srv")$(scenario_path "$sc")" 2>"$TMP/curl.err") || code="curl-failed"
  if [[ $code == 200 ]] && cmp -s "$TMP/expected" "$TMP/got"; then return 0; fi
  CHECK_MSG="status $code, body \"$(head -c 60 "$TMP/got" 2>/dev/null | perl -0777 -pe 's/\\/\\\\/g; s/\n/\\n/g; s/([^[:print:]])/sprintf("\\x%02x", ord $1)/ge')\"$(head -c 200 "$TMP/curl.err" | tr '\n' ' ')"
  return 1
}

run_wrk() { # cpu-pinned wrk, bounded; writes $TMP/wrk.out; sets WRK_RC
  local url=$1 secs=$2
  WRK_RC=0
  timeout -k 5 $((secs + 30)) taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${secs}s" --latency "$url" >"$TMP/wrk.out" 2>&1 &
  WRK_PID=$!
  wait "$WRK_PID" || WRK_RC=$?
  WRK_PID=""
}

# ---------------------------------------------------------------- servers
start_nginx() {
  local bin
  bin=$(nginx_bin)
  if [[ -z $bin ]]; then FAIL[nginx]="nginx not installed"; return 1; fi
  if port_busy "$NGINX_PORT"; then FAIL[nginx]="port $NGINX_PORT already in use"; return 1; fi
  sed -e "s#@TMP@#$TMP#g" -e "s#@PORT@#$NGINX_PORT#g" "${NGINX_CONF_TMPL:-$BENCH_DIR/configs/nginx.conf.tmpl}" >"$TMP/nginx.conf"
  NGINX_CMD="taskset -c $SERVER_CPU $bin -p $TMP -e $TMP/nginx-error.log -c $TMP/nginx.conf"
  taskset -c "$SERVER_CPU" "$bin" -p "$TMP" -e "$TMP/nginx-error.log" -c "$TMP/nginx.conf" >"$TMP/nginx.log" 2>&1 &
  NGINX_PID=$!
  local t0 code
  t0=$(now_ns)
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$NGINX_PORT/hello" 2>/dev/null) || true
    [[ $code == 200 ]] && return 0
    if ! kill -0 "$NGINX_PID" 2>/dev/null; then
      wait "$NGINX_PID" 2>/dev/null || true; NGINX_PID=""
      FAIL[nginx]="nginx exited at start: $(tail -c 300 "$TMP/nginx-error.log" "$TMP/nginx.log" 2>/dev/null | tr '\n' ' ')"
      return 1
    fi
    (( ($(now_ns) - t0) / 1000000000 < 10 )) || { FAIL[nginx]="nginx did not answer /hello within 10 s"; stop_pid "$NGINX_PID"; NGINX_PID=""; return 1; }
    sleep 0.01
  done
}

ensure_jar() {
  [[ -f $STRAIT_JAR ]] && return 0
  if [[ $STRAIT_JAR != "$ROOT_DIR/proxy/target/strait-proxy.jar" ]]; then
    FAIL[strait]="STRAIT_JAR=$STRAIT_JAR does not exist"; return 1
  fi
  log "building $STRAIT_JAR (../mvnw -q -B -DskipTests package, at most ${BUILD_TIMEOUT}s)"
  if ! (cd "$ROOT_DIR" && timeout -k 10 "$BUILD_TIMEOUT" ./mvnw -q -B -DskipTests package) >"$TMP/build.log" 2>&1; then
    log "build failed; last lines:"; tail -n 15 "$TMP/build.log" >&2 || true
    FAIL[strait]="jar missing and the build failed (see the build output on stderr)"; return 1
  fi
  [[ -f $STRAIT_JAR ]] || { FAIL[strait]="build succeeded but $STRAIT_JAR is missing"; return 1; }
}

STRAIT_STARTUP_MS="-"
STRAIT_IDLE_RSS="-"
start_strait() {
  command -v java >/dev/null || { FAIL[strait]="java not found"; return 1; }
  ensure_jar || return 1
  local p
  for p in "$STRAIT_PORT" "$STRAIT_ADMIN_PORT"; do
    if port_busy "$p"; then FAIL[strait]="port $p already in use"; return 1; fi
  done
  sed -e "s#@TMP@#$TMP#g" -e "s#@PORT@#$STRAIT_PORT#g" -e "s#@ADMIN_PORT@#$STRAIT_ADMIN_PORT#g" \
    "${STRAIT_CONF_TMPL:-$BENCH_DIR/configs/strait.yaml.tmpl}" >"$TMP/strait.yaml"
  # shellcheck disable=SC2086  # JAVA_OPTS is split into flags on purpose
  STRAIT_CMD="taskset -c $SERVER_CPU java ${JAVA_OPTS:+$JAVA_OPTS }-jar $STRAIT_JAR --config $TMP/strait.yaml"
  local t0 code
  t0=$(now_ns)
  # shellcheck disable=SC2086
  taskset -c "$SERVER_CPU" java $JAVA_OPTS -jar "$STRAIT_JAR" --config "$TMP/strait.yaml" >"$TMP/strait.log" 2>&1 &
  STRAIT_PID=$!
  while :; do
    code=$(curl -s -o "$TMP/first" -w '%{http_code}' --max-time 1 "http://127.0.0.1:$STRAIT_PORT/hello" 2>/dev/null) || true
    if [[ $code == 200 ]]; then
      STRAIT_STARTUP_MS=$(( ($(now_ns) - t0) / 1000000 ))
      break
    fi
    if ! kill -0 "$STRAIT_PID" 2>/dev/null; then
      local rc=0; wait "$STRAIT_PID" 2>/dev/null || rc=$?; STRAIT_PID=""
      log "Strait exited (rc=$rc); last output:"; tail -n 20 "$TMP/strait.log" >&2 || true
      FAIL[strait]="Strait exited at start with rc=$rc: $(tail -n 3 "$TMP/strait.log" | tr '\n|' '  ' | head -c 300)"
      return 1
    fi
    if (( ($(now_ns) - t0) / 1000000000 >= STARTUP_TIMEOUT )); then
      log "Strait did not answer /hello with 200 within ${STARTUP_TIMEOUT}s; last output:"; tail -n 20 "$TMP/strait.log" >&2 || true
      FAIL[strait]="no 200 on /hello within ${STARTUP_TIMEOUT} s (last status: ${code:-none})"
      stop_pid "$STRAIT_PID"; STRAIT_PID=""
      return 1
    fi
    sleep 0.01
  done
  sleep "$IDLE_WAIT"
  STRAIT_IDLE_RSS=$(status_kb "$STRAIT_PID" VmRSS)
  log "Strait answered /hello after ${STRAIT_STARTUP_MS} ms; idle RSS $(mib "$STRAIT_IDLE_RSS") MiB"
}

# ---------------------------------------------------------------- one measured run
declare -A RPS=() USPR=() P50=() P99=() ERRS=() NON2XX=() FOREIGN=() RSS=() HWM=() CELLNOTE=() OK_ROUNDS=()

measure() { # server scenario round
  local srv=$1 sc=$2 r=$3 key="$2|$1" pid
  pid=$(server_pid "$srv")
  if [[ -n ${FAIL[$srv]:-} ]]; then return 0; fi
  if ! kill -0 "$pid" 2>/dev/null; then
    FAIL[$srv]="server process died before round $r of $sc"; return 0
  fi
  if ! body_check "$srv" "$sc"; then
    CELLNOTE[$key]="${CELLNOTE[$key]:-}round $r: body check failed ($CHECK_MSG); "
    log "$sc/$srv round $r: body check FAILED: $CHECK_MSG"
    return 0
  fi
  local url="http://127.0.0.1:$(server_port "$srv")$(scenario_path "$sc")"
  local s0 s1 b0 b1 c0 c1 t0 t1
  children_ms; c0=$CHILD_MS; b0=$(sys_busy_ticks); s0=$(proc_ticks "$pid"); t0=$(now_ns)
  run_wrk "$url" "$SECS"
  s1=$(proc_ticks "$pid"); b1=$(sys_busy_ticks); t1=$(now_ns); children_ms; c1=$CHILD_MS
  if ((WRK_RC != 0)); then
    CELLNOTE[$key]="${CELLNOTE[$key]:-}round $r: wrk failed rc=$WRK_RC; "
    log "$sc/$srv round $r: wrk failed (rc=$WRK_RC): $(tail -n 3 "$TMP/wrk.out" | tr '\n' ' ')"
    return 0
  fi
  local reqs rps p50 p99 errs non2xx
  reqs=$(awk '/requests in/ {print $1; exit}' "$TMP/wrk.out")
  rps=$(awk '/^Requests\/sec:/ {print $2; exit}' "$TMP/wrk.out")
  p50=$(awk '$1 == "50%" {print $2; exit}' "$TMP/wrk.out")
  p99=$(awk '$1 == "99%" {print $2; exit}' "$TMP/wrk.out")
  errs=$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10; exit }' "$TMP/wrk.out")
  non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $5; exit}' "$TMP/wrk.out")
  if [[ -z $reqs || -z $rps || ${reqs:-0} == 0 ]]; then
    CELLNOTE[$key]="${CELLNOTE[$key]:-}round $r: no requests completed; "
    log "$sc/$srv round $r: no requests completed: $(tr '\n' ' ' <"$TMP/wrk.out" | head -c 300)"
    return 0
  fi
  local tck win_ticks server_ticks wrk_ticks uspr foreign
  tck=$(getconf CLK_TCK)
  server_ticks=$((s1 - s0))
  wrk_ticks=$(awk -v ms=$((c1 - c0)) -v t="$tck" 'BEGIN{printf "%.0f", ms * t / 1000}')
  win_ticks=$(awk -v ns=$((t1 - t0)) -v t="$tck" 'BEGIN{printf "%.2f", ns / 1e9 * t}')
  uspr=$(awk -v k="$server_ticks" -v t="$tck" -v n="$reqs" 'BEGIN{printf "%.2f", k / t * 1e6 / n}')
  foreign=$(awk -v b=$((b1 - b0)) -v s="$server_ticks" -v w="$wrk_ticks" -v win="$win_ticks" \
    'BEGIN{f = (b - s - w) / win * 100; if (f < 0) f = 0; printf "%.1f", f}')
  RPS[$key]+="$rps "
  USPR[$key]+="$uspr "
  P50[$key]+="$(lat_us "$p50") "
  P99[$key]+="$(lat_us "$p99") "
  ERRS[$key]+="${errs:-0} "
  NON2XX[$key]+="${non2xx:-0} "
  FOREIGN[$key]+="$foreign "
  OK_ROUNDS[$key]=$(( ${OK_ROUNDS[$key]:-0} + 1 ))
  RSS[$key]=$(status_kb "$pid" VmRSS)
  HWM[$key]=$(status_kb "$pid" VmHWM)
  if awk -v f="$foreign" -v w="$FOREIGN_WARN" 'BEGIN{exit !(f > w)}'; then
    CELLNOTE[$key]="${CELLNOTE[$key]:-}round $r: foreign CPU ${foreign}% (disturbed, consider a rerun); "
  fi
  log "$sc/$srv round $r: $rps req/s, $uspr us/req, p50 $p50, p99 $p99, errors ${errs:-0}, non-2xx ${non2xx:-0}, foreign ${foreign}%"
}

warm() { # server scenario secs
  local srv=$1 sc=$2 secs=$3
  [[ -z ${FAIL[$srv]:-} && $secs -gt 0 ]] || return 0
  log "warm-up $sc/$srv ${secs}s"
  run_wrk "http://127.0.0.1:$(server_port "$srv")$(scenario_path "$sc")" "$secs"
}

# ---------------------------------------------------------------- main
ensure_tools
mkdir -p "$TMP/www" "$RESULTS_DIR"
printf 'hello, world\n' >"$TMP/www/hello.txt"

JAVA_VERSION=$(java -version 2>&1 | tr '\n' ' ' || echo "java not found")
# shellcheck disable=SC2086
JVM_ERGO=$(taskset -c "$SERVER_CPU" java $JAVA_OPTS -XX:+PrintCommandLineFlags -version 2>&1 | head -n 1 || echo "-")
NGINX_VERSION=$("$(nginx_bin)" -v 2>&1 || echo "nginx not found")
WRK_VERSION=$(wrk -v 2>&1 | head -n 1 | awk '{print $1, $2}' || true)
GIT_REV=$(git -C "$ROOT_DIR" rev-parse --short HEAD 2>/dev/null || echo "no commit")

for s in $SERVERS; do
  case $s in
    nginx) log "starting nginx on 127.0.0.1:$NGINX_PORT (CPU $SERVER_CPU)"; start_nginx || log "nginx: ${FAIL[nginx]}" ;;
    strait) log "starting Strait on 127.0.0.1:$STRAIT_PORT (CPU $SERVER_CPU)"; start_strait || log "strait: ${FAIL[strait]}" ;;
    *) echo "quick.sh: unknown server $s" >&2; exit 2 ;;
  esac
done

for sc in $SCENARIOS; do
  scenario_path "$sc" >/dev/null
  warm strait "$sc" "$WARMUP"
  warm nginx "$sc" $((WARMUP > 0 ? 1 : 0))
  for r in $(seq "$ROUNDS"); do
    for s in $SERVERS; do measure "$s" "$sc" "$r"; done
  done
done

# ---------------------------------------------------------------- report
{
  echo "# Strait quick benchmark, $(date '+%Y-%m-%d %H:%M:%S %Z')"
  echo
  echo "$ROUNDS interleaved rounds x ${SECS} s per cell, \`wrk -t1 -c$CONNS --latency\` on CPU $CLIENT_CPU," \
    "server on CPU $SERVER_CPU, Strait warm-up ${WARMUP} s per scenario (not measured)."
  echo
  echo "| scenario | server | req/s (median) | req/s (min-max) | server CPU us/req (median, min-max) | p50 | p99 | RSS / HWM MiB | errors | non-2xx | foreign CPU (max) | status |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  for sc in $SCENARIOS; do
    for s in $SERVERS; do
      key="$sc|$s"
      n=${OK_ROUNDS[$key]:-0}
      if ((n == 0)); then
        reason=${FAIL[$s]:-${CELLNOTE[$key]:-no successful round}}; reason=${reason%; }
        echo "| $sc | $s | - | - | - | - | - | - | - | - | - | FAILED: ${reason//|//} |"
        continue
      fi
      read -r lo hi <<<"$(minmax "${RPS[$key]}")"
      read -r ulo uhi <<<"$(minmax "${USPR[$key]}")"
      status="ok ($n/$ROUNDS rounds)"
      note=${CELLNOTE[$key]:-}; note=${note%; }
      [[ -n $note ]] && status="$status; ${note//|//}"
      [[ -n ${FAIL[$s]:-} ]] && status="$status; ${FAIL[$s]//|//}"
      printf '| %s | %s | %s | %s-%s | %s (%s-%s) | %s | %s | %s / %s | %s | %s | %s%% | %s |\n' \
        "$sc" "$s" "$(fmt "$(median "${RPS[$key]}")" %.0f)" "$(fmt "$lo" %.0f)" "$(fmt "$hi" %.0f)" \
        "$(fmt "$(median "${USPR[$key]}")" %.2f)" "$(fmt "$ulo" %.2f)" "$(fmt "$uhi" %.2f)" \
        "$(fmt_lat "$(median "${P50[$key]}")")" "$(fmt_lat "$(median "${P99[$key]}")")" \
        "$(mib "${RSS[$key]:-}")" "$(mib "${HWM[$key]:-}")" \
        "$(sum "${ERRS[$key]}")" "$(sum "${NON2XX[$key]}")" "$(max "${FOREIGN[$key]}")" "$status"
    done
  done
  echo
  if [[ " $SERVERS " == *" strait "* ]]; then
    echo "| Strait startup | value |"
    echo "|---|---|"
    if [[ $STRAIT_STARTUP_MS != "-" ]]; then
      echo "| process start to first 200 on /hello (10 ms polling) | ${STRAIT_STARTUP_MS} ms |"
      echo "| idle RSS ${IDLE_WAIT} s after that | $(mib "$STRAIT_IDLE_RSS") MiB |"
    else
      echo "| start | FAILED: ${FAIL[strait]//|//} |"
    fi
    echo
  fi
  echo "Environment:"
  echo
  echo "- JDK: \`$JAVA_VERSION\`"
  echo "- JVM flags: \`${JAVA_OPTS:-(none: plain java -jar)}\`; ergonomics on CPU $SERVER_CPU: \`$JVM_ERGO\`"
  echo "- Strait: \`${STRAIT_CMD:-not started}\` (git $GIT_REV)"
  echo "- nginx: \`${NGINX_CMD:-not started}\` ($NGINX_VERSION; configs in bench/configs/)"
  echo "- wrk: $WRK_VERSION; CPU: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) vCPU; kernel $(uname -r)"
  echo "- server CPU = utime+stime of the server process (all threads) over the measured window / requests;"
  echo "  foreign CPU = busy CPU of the whole machine minus server and wrk, in % of one core (high = disturbed run)."
} | tee "$OUT"
log "written $OUT"
