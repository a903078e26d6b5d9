#!/usr/bin/env bash
# CPU per proxied request with the upstream over TCP against over a unix socket (ADR 0103): one nginx
# upstream listening on both, two proxies of the same jar on SERVER_CPU (one per way), wrk loading one
# then the other in short turns, as bench/ab.sh does; the median of the turns' ratios unix/TCP is the
# result. nginx and wrk share CLIENT_CPU.
#
#   bench/unix-socket.sh                      # 16 turns of 2 s, the built jar
#   TURNS=24 JAR=other.jar bench/unix-socket.sh
#
# Loopback only, bounded: TURNS x 2 x SECS seconds of load plus 6 s of warm-up each; everything it
# started stops at the end (or on Ctrl-C).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$BENCH_DIR/lib/common.sh" # wrk_turn, median, await_answers
JAR=${JAR:-$BENCH_DIR/../proxy/target/strait-proxy.jar}
TURNS=${TURNS:-16} SECS=${SECS:-2} CONNS=${CONNS:-64}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
APP_PORT=${APP_PORT:-18390} PORT_TCP=${PORT_TCP:-18381} PORT_UNIX=${PORT_UNIX:-18382}
for v in TURNS SECS CONNS; do [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "$v must be a whole number" >&2; exit 2; }; done
[[ -f $JAR ]] || { echo "no such jar: $JAR (./mvnw -B -q -DskipTests package)" >&2; exit 2; }
for c in nginx wrk java; do command -v $c >/dev/null || { echo "$c not found" >&2; exit 2; }; done

TMP=$(mktemp -d /tmp/strait-uds.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT

cat >"$TMP/nginx.conf" <<NGINX
daemon off; master_process off; worker_processes 1; pid $TMP/nginx.pid; error_log $TMP/nginx.err warn;
events { worker_connections 4096; }
http {
    access_log off; keepalive_requests 1000000; keepalive_timeout 75s;
    client_body_temp_path $TMP/cb; proxy_temp_path $TMP/pt; fastcgi_temp_path $TMP/ft;
    uwsgi_temp_path $TMP/ut; scgi_temp_path $TMP/st;
    server {
        listen 127.0.0.1:$APP_PORT; listen unix:$TMP/app.sock;
        location / { default_type text/plain; return 200 "hello, world!\n"; }
    }
}
NGINX
proxy_config() { # proxy_config PORT ADMIN_PORT ENDPOINT
  cat <<YAML
limits: { maxRequestsPerConnection: 1000000 }
workers: 1
accessLog: { enabled: false }
listeners: [ { name: http, address: "127.0.0.1:$1" } ]
admin: { address: "127.0.0.1:$2" }
upstreams: [ { name: app, endpoints: [ "$3" ] } ]
routes: [ { name: bench, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ] } ] } ]
YAML
}
proxy_config "$PORT_TCP" $((PORT_TCP + 1000)) "127.0.0.1:$APP_PORT" >"$TMP/tcp.yaml"
proxy_config "$PORT_UNIX" $((PORT_UNIX + 1000)) "unix:$TMP/app.sock" >"$TMP/unix.yaml"

taskset -c "$CLIENT_CPU" nginx -c "$TMP/nginx.conf" & pids+=($!)
# shellcheck disable=SC2086 # JAVA_OPTS are words
taskset -c "$SERVER_CPU" java ${JAVA_OPTS:-} -jar "$JAR" --config "$TMP/tcp.yaml" >"$TMP/tcp.log" 2>&1 & TCP=$!; pids+=($TCP)
# shellcheck disable=SC2086
taskset -c "$SERVER_CPU" java ${JAVA_OPTS:-} -jar "$JAR" --config "$TMP/unix.yaml" >"$TMP/unix.log" 2>&1 & UNIX=$!; pids+=($UNIX)
await_answers "http://127.0.0.1:$PORT_TCP/" "http://127.0.0.1:$PORT_UNIX/"
for port in "$PORT_TCP" "$PORT_UNIX"; do taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d6s "http://127.0.0.1:$port/" >/dev/null; done

turn() { wrk_turn "$1" "http://127.0.0.1:$2/"; } # turn PID PORT: "CPU-us-per-request requests"
ratios=()
for i in $(seq "$TURNS"); do
  read -r ct nt <<<"$(turn "$TCP" "$PORT_TCP")"
  read -r cu nu <<<"$(turn "$UNIX" "$PORT_UNIX")"
  r=$(awk -v a="$ct" -v b="$cu" 'BEGIN {printf "%.4f", b / a}')
  ratios+=("$r")
  echo "turn $i: tcp $ct us/req ($nt requests), unix $cu us/req ($nu requests), unix/tcp $r"
done
echo "median unix/tcp CPU per request: $(printf '%s\n' "${ratios[@]}" | median)"
