#!/usr/bin/env bash
# Side-by-side benchmark: Strait, nginx, haproxy and caddy on issue 4's ten scenarios and forward auth.
#
#   bench/run.sh quick     # a few minutes: 2 rounds x 3 s, 5 s JIT warm-up
#   bench/run.sh full      # under 30 minutes: 3 rounds x 8 s, 10 s warm-up; updates docs/benchmarks.md
#
# Method (shared/BENCHMARKING.md): each server with one worker pinned to SERVER_CPU, the load
# generator and the applications behind the servers on CLIENT_CPU/APP_CPU; per scenario every
# server is started fresh, warmed up, then measured in interleaved rounds (A B C D A B C D), each
# run preceded by a body check. Server CPU per request from /proc/<pid>/stat. Only 127.0.0.1.
# Results: bench/results/<run>/ (report.md, cells.csv, raw.csv, chart.png, logs/). See bench/README.md.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(dirname "$BENCH_DIR")
# shellcheck source=lib/common.sh
source "$BENCH_DIR/lib/common.sh"
# shellcheck source=lib/servers.sh
source "$BENCH_DIR/lib/servers.sh"
# shellcheck source=lib/measure.sh
source "$BENCH_DIR/lib/measure.sh"
# shellcheck source=lib/report.sh
source "$BENCH_DIR/lib/report.sh"

usage() {
  sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  echo "Settings are environment variables; see bench/README.md (ROUNDS, SECS, WARMUP, SCENARIOS, SERVERS, ...)."
}

MODE=${1:-${MODE:-quick}}
declare -A CMDLINE_ENV=()   # settings given by the caller, for the report's "reproduce" line
for v in ROUNDS SECS WARMUP WARMUP_OTHERS SCENARIOS SERVERS CONNS H2_STREAMS PHP_CHILDREN JAVA_OPTS STRAIT_TRANSPORT SERVER_CPU CLIENT_CPU APP_CPU; do
  [[ -n ${!v+x} ]] && CMDLINE_ENV[$v]=${!v}
done
case $MODE in
  quick) : "${ROUNDS:=2}" "${SECS:=3}" "${WARMUP:=5}" "${WARMUP_OTHERS:=1}" "${PUBLISH:=0}" "${MAX_MINUTES:=15}" ;;
  full) : "${ROUNDS:=3}" "${SECS:=8}" "${WARMUP:=10}" "${WARMUP_OTHERS:=2}" "${PUBLISH:=1}" "${MAX_MINUTES:=28}" ;;
  -h | --help | help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac

SCENARIOS=${SCENARIOS:-$ALL_SCENARIOS}
SERVERS=${SERVERS:-$ALL_SERVERS}
CONNS=${CONNS:-64}                # connections of wrk -t1 and h2load -t1
H2_STREAMS=${H2_STREAMS:-1}       # h2load -m: concurrent streams per connection
NGINX_PORT=${NGINX_PORT:-18081}
HAPROXY_PORT=${HAPROXY_PORT:-18082}
CADDY_PORT=${CADDY_PORT:-18083}
STRAIT_PORT=${STRAIT_PORT:-18080}
STRAIT_ADMIN_PORT=${STRAIT_ADMIN_PORT:-19901}
APP_PORT=${APP_PORT:-18090}       # upstream nginx, node app or uvicorn app
PHP_PORT=${PHP_PORT:-18091}
PHP_CHILDREN=${PHP_CHILDREN:-4}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
APP_CPU=${APP_CPU:-$CLIENT_CPU}
JAVA_OPTS=${JAVA_OPTS:-}          # extra JVM flags for Strait (default: none, plain java -jar)
STRAIT_TRANSPORT=${STRAIT_TRANSPORT:-}  # io_uring, epoll or nio added to Strait's configs (default: auto)
STRAIT_JAR=${STRAIT_JAR:-$ROOT_DIR/proxy/target/strait-proxy.jar}
CONFIG_DIR=${CONFIG_DIR:-$BENCH_DIR/configs}   # another directory of the same layout, to try variants
STARTUP_TIMEOUT=${STARTUP_TIMEOUT:-30}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-900}
FOREIGN_WARN=${FOREIGN_WARN:-10}  # flag a round when other work took more than this % of one core
INSTALL=${INSTALL:-1}             # 0: never call apt-get
LABEL=${LABEL:-}                  # a line shown above the published figures (e.g. "smoke run")

for v in ROUNDS SECS WARMUP WARMUP_OTHERS CONNS H2_STREAMS PHP_CHILDREN MAX_MINUTES STARTUP_TIMEOUT; do
  [[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a whole number (got '${!v}')"
done
(( ROUNDS >= 1 && SECS >= 1 && CONNS >= 1 && PHP_CHILDREN >= 1 )) || die "ROUNDS, SECS, CONNS, PHP_CHILDREN must be >= 1"
for sc in $SCENARIOS; do scenario_kind "$sc" >/dev/null || die "unknown scenario '$sc' (known: $ALL_SCENARIOS)"; done
for s in $SERVERS; do [[ " $ALL_SERVERS " == *" $s "* ]] || die "unknown server '$s' (known: $ALL_SERVERS)"; done
if (( $(nproc) < 2 )); then log "only $(nproc) CPU: server and load generator share it; figures will not compare with 2-core runs"; fi

RUN_ID=$(date +%Y%m%d-%H%M%S)-$MODE
OUT_DIR=$BENCH_DIR/results/$RUN_ID
RAW_CSV=$OUT_DIR/raw.csv
DEADLINE_NS=$(( $(now_ns) + MAX_MINUTES * 60 * 1000000000 ))

TMP=$(mktemp -d /tmp/strait-bench.XXXXXX)
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$TMP/logs" "$TMP/www" "$TMP/php" "$OUT_DIR/logs"

# ---------------------------------------------------------------- tools
ensure_tools() {
  local need=()
  command -v curl >/dev/null || need+=(curl)
  command -v wrk >/dev/null || need+=(wrk)
  command -v taskset >/dev/null || need+=(util-linux)
  command -v openssl >/dev/null || need+=(openssl)
  command -v gnuplot >/dev/null || need+=(gnuplot-nox)
  [[ " $SCENARIOS " == *" browser-static "* ]] && ! command -v zstd >/dev/null && need+=(zstd) # the body check decodes zstd
  local sc apps=" " s
  for sc in $SCENARIOS; do apps+="$(scenario_app "$sc") $(scenario_loader "$sc") "; done
  [[ " $SERVERS " == *" nginx "* || $apps == *" upstream-nginx "* ]] && [[ -z $(nginx_bin) ]] && need+=(nginx)
  [[ " $SERVERS " == *" haproxy "* && -z $(haproxy_bin) ]] && need+=(haproxy)
  [[ " $SERVERS " == *" caddy "* ]] && ! command -v caddy >/dev/null && need+=(caddy)
  [[ $apps == *" h2load "* ]] && ! command -v h2load >/dev/null && need+=(nghttp2-client)
  [[ $apps == *" php-fpm "* && -z $(phpfpm_bin) ]] && need+=(php8.2-fpm)
  [[ $apps == *" node "* ]] && ! command -v node >/dev/null && need+=(nodejs)
  [[ $apps == *" python "* && -z $(python_bin) ]] && need+=(python3-uvicorn python3-uvloop python3-httptools)
  ((${#need[@]} == 0)) && return 0
  if [[ $INSTALL != 1 ]]; then log "missing: ${need[*]} (INSTALL=0: not installing; their cells will fail)"; return 0; fi
  log "installing missing packages: ${need[*]}"
  local sudo=""
  [[ $(id -u) == 0 ]] || sudo=sudo
  timeout 300 $sudo apt-get update -qq || log "apt-get update failed"
  for s in "${need[@]}"; do
    # php-fpm's package starts a system service; the harness runs its own php-fpm only.
    DEBIAN_FRONTEND=noninteractive timeout 600 $sudo apt-get install -y -qq --no-install-recommends "$s" >"$TMP/logs/apt-$s.log" 2>&1 ||
      log "apt-get install $s failed: $(tail -n 3 "$TMP/logs/apt-$s.log" | oneline)"
  done
}

ensure_jar() {
  [[ -f $STRAIT_JAR ]] && return 0
  if [[ $STRAIT_JAR != "$ROOT_DIR/proxy/target/strait-proxy.jar" ]]; then
    JAR_MSG="STRAIT_JAR=$STRAIT_JAR does not exist"; return 1
  fi
  log "building $STRAIT_JAR (./mvnw -q -B -DskipTests package, at most ${BUILD_TIMEOUT}s)"
  if ! (cd "$ROOT_DIR" && timeout -k 10 "$BUILD_TIMEOUT" ./mvnw -q -B -DskipTests package) >"$TMP/logs/build.log" 2>&1; then
    log "build failed; last lines:"; tail -n 15 "$TMP/logs/build.log" >&2 || true
    JAR_MSG="jar missing and the build failed (bench/results/$RUN_ID/logs/build.log)"; return 1
  fi
  [[ -f $STRAIT_JAR ]] || { JAR_MSG="build succeeded but $STRAIT_JAR is missing"; return 1; }
}

# ---------------------------------------------------------------- fixtures
prepare_fixtures() {
  printf 'hello, world\n' >"$TMP/www/hello.txt"            # static-small: 13 bytes
  printf 'hello, world!\n' >"$TMP/www/respond-body.txt"    # respond, proxy, cache-hit, php, node, python, auth
  head -c 1048576 /dev/urandom >"$TMP/www/1m.bin"          # static-1m, tls-static-1m
  head -c 131072 /dev/urandom >"$TMP/www/upload.bin"       # upload: what every request POSTs (128 KiB)
  # gzip-static: 32 KiB of HTML-like text, the same every run (compresses ~3x at level 1, as pages do).
  perl -e 'srand(7); my @w = qw(<p> </p> <li> </li> <a href="/docs"> </a> strait proxy route upstream answer
    gzip event loop the a of to and in); my $s = "<!doctype html>\n<html><body>\n";
    while (length($s) < 32768) { $s .= $w[int(rand(@w))] . (rand() < 0.1 ? "\n" : " ") . int(rand(1000)) . " " }
    print substr($s, 0, 32768)' >"$TMP/www/page.html"
  cp "$BENCH_DIR/apps/hello.php" "$TMP/php/hello.php"
  # One self-signed ECDSA P-256 certificate for every TLS server; curl checks it (--cacert).
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$TMP/key.pem" -out "$TMP/cert.pem" \
    >"$TMP/logs/openssl.log" 2>&1 || die "openssl could not make the test certificate: $(oneline <"$TMP/logs/openssl.log")"
  chmod a+r "$TMP/key.pem" "$TMP/cert.pem"
}

# ---------------------------------------------------------------- per-cell state
declare -A STATE=() REASON=() SERVER_CMD=() STARTED_NS=() STRAIT_STARTUP_MS=() SCENARIO_APP_DESC=()
past_deadline() { (( $(now_ns) > DEADLINE_NS )); }

run_scenario() {
  local sc=$1 srv running=()
  log "=== scenario $sc"
  for srv in $SERVERS; do STATE["$sc|$srv"]=pending; done
  for srv in $SERVERS; do
    local na; na=$(server_na "$srv" "$sc")
    if [[ -n $na ]]; then STATE["$sc|$srv"]=na; REASON["$sc|$srv"]=$na; fi
  done
  if [[ " $SERVERS " == *" strait "* && -n ${JAR_MSG:-} ]]; then STATE["$sc|strait"]=failed; REASON["$sc|strait"]=$JAR_MSG; fi
  if ! start_app "$sc"; then
    for srv in $SERVERS; do
      [[ ${STATE["$sc|$srv"]} == pending ]] && { STATE["$sc|$srv"]=failed; REASON["$sc|$srv"]="application behind the server did not start: $START_MSG"; }
    done
    log "$sc: $START_MSG"; return 0
  fi
  SCENARIO_APP_DESC[$sc]=$APP_DESC
  for srv in $SERVERS; do
    [[ ${STATE["$sc|$srv"]} == pending ]] || continue
    log "starting $srv for $sc on 127.0.0.1:$(server_port "$srv") (CPU $SERVER_CPU)"
    if ! start_server "$srv" "$sc"; then
      if [[ $srv == strait && $START_UNSUPPORTED == 1 ]]; then
        STATE["$sc|$srv"]=unsupported; REASON["$sc|$srv"]=$START_MSG
      else
        STATE["$sc|$srv"]=failed; REASON["$sc|$srv"]="did not start: $START_MSG"
      fi
      log "$sc/$srv: ${STATE["$sc|$srv"]}: $START_MSG"; continue
    fi
    # The body check before any load: a server that answers wrongly is not measured at all.
    if [[ $(scenario_app "$sc") == upstream-nginx ]]; then check_body "$srv" "$sc" || true; fi  # fills a cache
    if ! check_body "$srv" "$sc" || { [[ $sc == cache-hit ]] && ! check_cached "$srv" "$sc"; }; then
      if [[ $srv == strait ]]; then
        STATE["$sc|$srv"]=unsupported; REASON["$sc|$srv"]=$CHECK_MSG
      else
        STATE["$sc|$srv"]=failed; REASON["$sc|$srv"]=$CHECK_MSG
      fi
      log "$sc/$srv: ${STATE["$sc|$srv"]}: $CHECK_MSG"
      bg_stop "$srv"; continue
    fi
    STATE["$sc|$srv"]=running; running+=("$srv")
  done
  if ((${#running[@]} > 0)); then
    for srv in "${running[@]}"; do
      if past_deadline; then break; fi
      if [[ $srv == strait ]]; then warm "$srv" "$sc" "$WARMUP"; else warm "$srv" "$sc" "$WARMUP_OTHERS"; fi
    done
    local r
    for r in $(seq "$ROUNDS"); do
      if past_deadline; then log "MAX_MINUTES=$MAX_MINUTES reached: no more rounds"; break; fi
      for srv in "${running[@]}"; do measure "$srv" "$sc" "$r"; done
    done
  fi
  for srv in "${running[@]}"; do
    STATE["$sc|$srv"]=measured
    bg_stop "$srv"
  done
  stop_app
}

# ---------------------------------------------------------------- main
ensure_tools
prepare_fixtures
JAR_MSG=""
if [[ " $SERVERS " == *" strait "* ]]; then
  command -v java >/dev/null || JAR_MSG="java not found"
  [[ -n $JAR_MSG ]] || ensure_jar || log "strait: $JAR_MSG"
fi
RENDER_VARS=("TMP=$TMP" "CONF=$TMP/conf" "WWW=$TMP/www" "PHP_ROOT=$TMP/php" "CERT=$TMP/cert.pem" "KEY=$TMP/key.pem"
  "ADMIN_PORT=$STRAIT_ADMIN_PORT" "APP_PORT=$APP_PORT" "PHP_PORT=$PHP_PORT" "PHP_CHILDREN=$PHP_CHILDREN")
mkdir -p "$TMP/conf"
echo "run,mode,scenario,server,round,requests,secs,rps,server_us_per_req,client_us_per_req,app_us_per_req,p50_us,p99_us,errors,non2xx,foreign_cpu_pct,softirq_us_per_req,upstream_requests_per_request,rss_kb,hwm_kb" >"$RAW_CSV"
collect_environment
log "run $RUN_ID: scenarios [$SCENARIOS], servers [$SERVERS], $ROUNDS round(s) x ${SECS}s, warm-up ${WARMUP}s (Strait) / ${WARMUP_OTHERS}s"
for sc in $SCENARIOS; do
  if past_deadline; then
    for s in $SERVERS; do [[ -n ${STATE["$sc|$s"]:-} ]] || { STATE["$sc|$s"]=skipped; REASON["$sc|$s"]="MAX_MINUTES=$MAX_MINUTES reached before this scenario"; }; done
    continue
  fi
  run_scenario "$sc"
done
write_report
cp "$TMP"/logs/*.log "$TMP"/*.log "$OUT_DIR/logs/" 2>/dev/null || true
log "results in ${OUT_DIR#"$ROOT_DIR"/}/ (report.md, cells.csv, raw.csv, chart.png, logs/)"
if [[ $PUBLISH == 1 ]]; then publish_report; fi
