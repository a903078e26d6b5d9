#!/usr/bin/env bash
# What OCSP stapling (ADR 0104) costs a TLS handshake: two proxies of the same jar on SERVER_CPU with the same
# certificate, one whose listener staples (its answers from openssl's own responder, `openssl ocsp`) and one that
# does not; wrk makes a new TLS connection for every request (Connection: close) against one, then the other, in
# short turns, as bench/ab.sh does; the median of the turns' ratios stapling/plain of CPU per handshake is the
# result. wrk does not ask for the status, so this is what stapling costs the handshakes of clients that do not
# (handing the answer to each engine); SCLIENTS=N more rounds of N `openssl s_client -status` handshakes, which
# ask, and the proxy's CPU per handshake for each side.
#
#   bench/ocsp-stapling.sh                    # 16 turns of 2 s, the built jar
#   TURNS=24 JAR=other.jar bench/ocsp-stapling.sh
#
# Loopback only, bounded: TURNS x 2 x SECS seconds of load plus 6 s of warm-up each; everything it started
# stops at the end (or on Ctrl-C).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$BENCH_DIR/lib/common.sh" # wrk_turn, median, proc_ticks, CLK_TCK, await_answers
JAR=${JAR:-$BENCH_DIR/../proxy/target/strait-proxy.jar}
TURNS=${TURNS:-16} SECS=${SECS:-2} CONNS=${CONNS:-16} SCLIENTS=${SCLIENTS:-200}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
OCSP_PORT=${OCSP_PORT:-18391} PORT_PLAIN=${PORT_PLAIN:-18383} PORT_STAPLED=${PORT_STAPLED:-18384}
for v in TURNS SECS CONNS SCLIENTS; do [[ ${!v} =~ ^[0-9]+$ ]] || { echo "$v must be a whole number" >&2; exit 2; }; done
[[ -f $JAR ]] || { echo "no such jar: $JAR (./mvnw -B -q -DskipTests package)" >&2; exit 2; }
for c in openssl wrk java curl; do command -v $c >/dev/null || { echo "$c not found" >&2; exit 2; }; done

TMP=$(mktemp -d /tmp/strait-ocsp.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT

# A CA, and a certificate for site.test that names the responder; openssl's index of what the CA issued.
(
  cd "$TMP"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt \
    -subj /CN=bench-ca -days 2 -addext basicConstraints=critical,CA:true 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout site.key -out site.csr -subj /CN=site.test 2>/dev/null
  printf 'subjectAltName=DNS:site.test\nauthorityInfoAccess=OCSP;URI:http://127.0.0.1:%s/\n' "$OCSP_PORT" >site.ext
  openssl x509 -req -in site.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile site.ext -out site.crt 2>/dev/null
  cat site.crt ca.crt >chain.crt
  serial=$(openssl x509 -in site.crt -noout -serial | cut -d= -f2)
  expiry=$(date -u -d "$(openssl x509 -in site.crt -noout -enddate | cut -d= -f2)" +%y%m%d%H%M%SZ)
  printf 'V\t%s\t\t%s\tunknown\t/CN=site.test\n' "$expiry" "$serial" >index.txt
)
taskset -c "$CLIENT_CPU" openssl ocsp -index "$TMP/index.txt" -port "$OCSP_PORT" -rsigner "$TMP/ca.crt" \
  -rkey "$TMP/ca.key" -CA "$TMP/ca.crt" -nmin 60 -ignore_err >"$TMP/ocsp.log" 2>&1 & pids+=($!)

proxy_config() { # proxy_config PORT ADMIN_PORT STAPLING
  cat <<YAML
workers: 1
accessLog: { enabled: false }
listeners:
  - { name: https, address: "127.0.0.1:$1", tls: { certificates: [ { cert: $TMP/chain.crt, key: $TMP/site.key } ], ocspStapling: $3 } }
admin: { address: "127.0.0.1:$2" }
routes: [ { name: bench, hosts: [ "*" ], rules: [ { respond: { status: 200, body: "hello, world!\n" } } ] } ]
YAML
}
proxy_config "$PORT_PLAIN" $((PORT_PLAIN + 1000)) false >"$TMP/plain.yaml"
proxy_config "$PORT_STAPLED" $((PORT_STAPLED + 1000)) true >"$TMP/stapled.yaml"
# shellcheck disable=SC2086 # JAVA_OPTS are words
taskset -c "$SERVER_CPU" java ${JAVA_OPTS:-} -jar "$JAR" --config "$TMP/plain.yaml" >"$TMP/plain.log" 2>&1 & PLAIN=$!; pids+=($PLAIN)
# shellcheck disable=SC2086
taskset -c "$SERVER_CPU" java ${JAVA_OPTS:-} -jar "$JAR" --config "$TMP/stapled.yaml" >"$TMP/stapled.log" 2>&1 & STAPLED=$!; pids+=($STAPLED)
await_answers "https://127.0.0.1:$PORT_PLAIN/" "https://127.0.0.1:$PORT_STAPLED/"
status() { # status PORT: what openssl's client reads of the stapled answer
  openssl s_client -connect "127.0.0.1:$1" -servername site.test -status </dev/null 2>/dev/null |
    grep -m1 -o 'OCSP Response Status: [a-z]*\|OCSP response: no response sent' || true
}
for _ in $(seq 100); do [[ $(status "$PORT_STAPLED") == *successful* ]] && break; sleep 0.1; done
echo "stapling: $(status "$PORT_STAPLED"); plain: $(status "$PORT_PLAIN")"
[[ $(status "$PORT_STAPLED") == *successful* ]] || { echo "no staple:" >&2; tail -5 "$TMP/stapled.log" >&2; exit 1; }
for port in "$PORT_PLAIN" "$PORT_STAPLED"; do
  taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d6s -H "Connection: close" "https://127.0.0.1:$port/" >/dev/null
done

turn() { wrk_turn "$1" "https://127.0.0.1:$2/" -H "Connection: close"; } # turn PID PORT: "CPU-us-per-handshake handshakes"
ratios=()
for i in $(seq "$TURNS"); do
  if (( i % 2 )); then read -r cp np <<<"$(turn "$PLAIN" "$PORT_PLAIN")"; read -r cs ns <<<"$(turn "$STAPLED" "$PORT_STAPLED")"
  else read -r cs ns <<<"$(turn "$STAPLED" "$PORT_STAPLED")"; read -r cp np <<<"$(turn "$PLAIN" "$PORT_PLAIN")"; fi
  r=$(awk -v a="$cp" -v b="$cs" 'BEGIN {printf "%.4f", b / a}')
  ratios+=("$r")
  echo "turn $i: plain $cp us/handshake ($np), stapling $cs us/handshake ($ns), stapling/plain $r"
done
echo "median stapling/plain CPU per handshake (clients that do not ask): $(printf '%s\n' "${ratios[@]}" | median)"

if (( SCLIENTS > 0 )); then # clients that ask: openssl s_client -status, one process per handshake
  asked() { # asked PID PORT: the proxy's CPU us per handshake over SCLIENTS handshakes
    local t0 t1 i
    t0=$(proc_ticks "$1")
    for ((i = 0; i < SCLIENTS; i++)); do
      taskset -c "$CLIENT_CPU" openssl s_client -connect "127.0.0.1:$2" -servername site.test -status </dev/null >/dev/null 2>&1
    done
    t1=$(proc_ticks "$1")
    awk -v d=$((t1 - t0)) -v n="$SCLIENTS" -v hz="$CLK_TCK" 'BEGIN {printf "%.1f", d * 1e6 / hz / n}'
  }
  for round in 1 2 3; do
    echo "asking clients, round $round: plain $(asked "$PLAIN" "$PORT_PLAIN") us/handshake," \
      "stapling $(asked "$STAPLED" "$PORT_STAPLED") us/handshake ($SCLIENTS handshakes each)"
  done
fi
