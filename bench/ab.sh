#!/usr/bin/env bash
# A/B of two Strait builds (or two sets of JVM flags) on CPU per request, for changes of a few percent that
# the side-by-side harness cannot tell from the host's drift. Both run at once on SERVER_CPU with the
# `respond` config (or with SCENARIO=proxy the `proxy` one, in front of one nginx upstream on CLIENT_CPU,
# as the harness's); wrk loads one, then the other, in short turns, and each turn's ratio B/A of CPU per
# request (utime+stime from /proc/PID/stat over wrk's request count) is kept. The median of those ratios
# is the result: the host's drift moves both sides of a turn alike. The same jar against itself gives
# 1.00 with half the turns within +-2% on the 2-core benchmark VM (docs/benchmarks.md, 2026-12-04).
#
#   bench/ab.sh A.jar B.jar                                    # 24 turns of 2 s each
#   TURNS=30 SECS=2 bench/ab.sh A.jar B.jar
#   OPTS_A="" OPTS_B="-Dsome.flag=true" bench/ab.sh X.jar X.jar   # the same jar, two sets of flags
#   JAVA_OPTS="-XX:TieredStopAtLevel=1" bench/ab.sh A.jar B.jar   # flags for both
#   SCENARIO=proxy bench/ab.sh A.jar B.jar                        # the reverse-proxy path
#
# Loopback only, bounded: TURNS x 2 x SECS seconds of load plus a 6 s warm-up each; both servers stop at
# the end (or on Ctrl-C).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$BENCH_DIR/lib/common.sh" # proc_ticks, status_kb, CLK_TCK
(( $# == 2 )) || { sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }
JAR_A=$1 JAR_B=$2
TURNS=${TURNS:-24}
SECS=${SECS:-2}
CONNS=${CONNS:-64}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT_A=${PORT_A:-18080} PORT_B=${PORT_B:-18070}
JAVA_OPTS=${JAVA_OPTS:-} OPTS_A=${OPTS_A:-} OPTS_B=${OPTS_B:-}
SCENARIO=${SCENARIO:-respond} APP_PORT=${APP_PORT:-18390}
[[ $SCENARIO == respond || $SCENARIO == proxy ]] || { echo "SCENARIO must be respond or proxy" >&2; exit 2; }
for v in TURNS SECS CONNS; do [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "$v must be a whole number" >&2; exit 2; }; done
for j in "$JAR_A" "$JAR_B"; do [[ -f $j ]] || { echo "no such jar: $j" >&2; exit 2; }; done
command -v wrk >/dev/null || { echo "wrk not found (apt-get install wrk)" >&2; exit 2; }
[[ $SCENARIO == respond ]] || command -v nginx >/dev/null || { echo "nginx not found (the proxy's upstream)" >&2; exit 2; }

TMP=$(mktemp -d /tmp/strait-ab.XXXXXX)
pids=()
ab_cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap ab_cleanup EXIT

start() { # start NAME JAR PORT ADMIN_PORT OPTS: the server's PID on stdout
  sed -e "s/@PORT@/$3/; s/@ADMIN_PORT@/$4/; s/@APP_PORT@/$APP_PORT/" "$BENCH_DIR/configs/strait/$SCENARIO.yaml" >"$TMP/$1.yaml"
  # shellcheck disable=SC2086 # flags are words
  taskset -c "$SERVER_CPU" java $JAVA_OPTS $5 -jar "$2" --config "$TMP/$1.yaml" >"$TMP/$1.log" 2>&1 &
  echo $!
}
ready() { # ready PORT PID
  for _ in $(seq 200); do
    curl -fs -o /dev/null "http://127.0.0.1:$1/hello" && return 0
    kill -0 "$2" 2>/dev/null || break
    sleep 0.05
  done
  echo "the server on port $1 did not start:" >&2; tail -5 "$TMP"/*.log >&2; exit 1
}
turn() { # turn PID PORT: CPU microseconds per request over one turn of load
  local t0 t1 reqs
  t0=$(proc_ticks "$1")
  reqs=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${SECS}s" "http://127.0.0.1:$2/hello" \
    | awk '/requests in/ {print $1}')
  t1=$(proc_ticks "$1")
  awk -v d=$((t1 - t0)) -v n="$reqs" -v hz="$CLK_TCK" 'BEGIN {printf "%.3f", d * 1e6 / hz / n}'
}

if [[ $SCENARIO == proxy ]]; then # the harness's upstream: a fixed answer, keep-alive
  sed -e "s|@TMP@|$TMP|g; s|@APP_PORT@|$APP_PORT|g" "$BENCH_DIR/configs/upstream/nginx.conf" >"$TMP/upstream.conf"
  taskset -c "$CLIENT_CPU" nginx -p "$TMP" -e "$TMP/upstream-error.log" -c "$TMP/upstream.conf" &
  pids+=($!)
fi
pid_a=$(start a "$JAR_A" "$PORT_A" 19911 "$OPTS_A"); pids+=("$pid_a")
pid_b=$(start b "$JAR_B" "$PORT_B" 19912 "$OPTS_B"); pids+=("$pid_b")
ready "$PORT_A" "$pid_a"; ready "$PORT_B" "$pid_b"
for port in "$PORT_A" "$PORT_B"; do # warm-up: the JIT compiles the hot paths before anything is measured
  taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d6s "http://127.0.0.1:$port/hello" >/dev/null
done

as=() bs=() ratios=()
for ((i = 1; i <= TURNS; i++)); do
  if (( i % 2 )); then a=$(turn "$pid_a" "$PORT_A"); b=$(turn "$pid_b" "$PORT_B")
  else b=$(turn "$pid_b" "$PORT_B"); a=$(turn "$pid_a" "$PORT_A"); fi
  r=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.4f", b / a}')
  as+=("$a") bs+=("$b") ratios+=("$r")
  echo "turn $i: A $a us/req, B $b us/req, B/A $r"
done
echo "A: $JAR_A $JAVA_OPTS $OPTS_A"
echo "B: $JAR_B $JAVA_OPTS $OPTS_B"
echo "median CPU per request: A $(printf '%s\n' "${as[@]}" | median) us, B $(printf '%s\n' "${bs[@]}" | median) us"
echo "median of the turns' B/A: $(printf '%s\n' "${ratios[@]}" | median) (sorted: $(printf '%s\n' "${ratios[@]}" | sort -g | tr '\n' ' '))"
echo "peak RSS: A $(status_kb "$pid_a" VmHWM) kB, B $(status_kb "$pid_b" VmHWM) kB"
