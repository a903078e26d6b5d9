#!/usr/bin/env bash
# What jwtAuth (ADR 0108) costs a request: two proxies of the same jar on SERVER_CPU answering `respond`, one
# behind a jwtAuth rule with an inline RS256 key, one without; wrk sends the same Authorization: Bearer token to
# both, against one, then the other, in short turns, as bench/ab.sh does; the median of the turns' ratios
# jwt/plain of CPU per request is the result. One token, so after the first request it is remembered: the steady
# cost of a client's requests. Then FRESH=N rounds where every request carries one of 2048 tokens in turn, more
# than a rule remembers, so each is checked by its RSA signature: what a client costs the first time it is seen
# (and what a flood of made-up tokens costs at most).
#
#   bench/jwt.sh                    # 16 turns of 2 s, the built jar
#   TURNS=24 JAR=other.jar bench/jwt.sh
#
# Loopback only, bounded: TURNS x 2 x SECS seconds of load plus 6 s of warm-up each, and FRESH x 2 x SECS more;
# everything it started stops at the end (or on Ctrl-C).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
source "$BENCH_DIR/lib/common.sh" # wrk_turn, median, await_answers
JAR=${JAR:-$BENCH_DIR/../proxy/target/strait-proxy.jar}
TURNS=${TURNS:-16} SECS=${SECS:-2} CONNS=${CONNS:-64} FRESH=${FRESH:-3}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
PORT_PLAIN=${PORT_PLAIN:-18385} PORT_JWT=${PORT_JWT:-18386}
for v in TURNS SECS CONNS FRESH; do [[ ${!v} =~ ^[0-9]+$ ]] || { echo "$v must be a whole number" >&2; exit 2; }; done
[[ -f $JAR ]] || { echo "no such jar: $JAR (./mvnw -B -q -DskipTests package)" >&2; exit 2; }
for c in openssl wrk java curl basenc xxd; do command -v $c >/dev/null || { echo "$c not found" >&2; exit 2; }; done

TMP=$(mktemp -d /tmp/strait-jwt.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT

b64url() { basenc --base64url -w0 | tr -d '='; }
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$TMP/key.pem" 2>/dev/null
n=$(openssl rsa -in "$TMP/key.pem" -noout -modulus | cut -d= -f2 | xxd -r -p | b64url)
jwks="{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"bench\",\"use\":\"sig\",\"n\":\"$n\",\"e\":\"AQAB\"}]}"
header=$(printf '{"alg":"RS256","typ":"JWT","kid":"bench"}' | b64url)
token() { # token SUBJECT: an RS256 token for it, valid an hour
  local payload
  payload=$(printf '{"sub":"%s","exp":%d}' "$1" $(($(date +%s) + 3600)) | b64url)
  printf '%s.%s.%s' "$header" "$payload" "$(printf '%s.%s' "$header" "$payload" |
    openssl dgst -sha256 -sign "$TMP/key.pem" | b64url)"
}
TOKEN=$(token bench)

proxy_config() { # proxy_config PORT ADMIN_PORT GUARD
  cat <<YAML
workers: 1
accessLog: { enabled: false }
listeners: [ { name: http, address: "127.0.0.1:$1" } ]
admin: { address: "127.0.0.1:$2" }
routes: [ { name: bench, hosts: [ "*" ], rules: [ { respond: { status: 200, body: "hello, world!\n" }$3 } ] } ]
YAML
}
proxy_config "$PORT_PLAIN" $((PORT_PLAIN + 1000)) "" >"$TMP/plain.yaml"
proxy_config "$PORT_JWT" $((PORT_JWT + 1000)) ", jwtAuth: { jwks: '$jwks', claimHeaders: { sub: X-User } }" >"$TMP/jwt.yaml"
# shellcheck disable=SC2086 # JAVA_OPTS are words
taskset -c "$SERVER_CPU" java ${JAVA_OPTS:-} -jar "$JAR" --config "$TMP/plain.yaml" >"$TMP/plain.log" 2>&1 & PLAIN=$!; pids+=($PLAIN)
# shellcheck disable=SC2086
taskset -c "$SERVER_CPU" java ${JAVA_OPTS:-} -jar "$JAR" --config "$TMP/jwt.yaml" >"$TMP/jwt.log" 2>&1 & JWT=$!; pids+=($JWT)
await_answers "http://127.0.0.1:$PORT_PLAIN/"
for _ in $(seq 100); do
  [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT_JWT/") == 401 ]] && break; sleep 0.1
done
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT_JWT/")
[[ $code == 200 ]] || { echo "the token was not taken ($code):" >&2; tail -5 "$TMP/jwt.log" >&2; exit 1; }
echo "jwtAuth: no token 401, the token 200"
for port in "$PORT_PLAIN" "$PORT_JWT"; do
  taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d6s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$port/" >/dev/null
done

turn() { # turn PID PORT [WRK ARGS...]: "CPU-us-per-request requests"
  local pid=$1 port=$2
  shift 2
  wrk_turn "$pid" "http://127.0.0.1:$port/" "$@"
}
ratios=()
for i in $(seq "$TURNS"); do
  if (( i % 2 )); then
    read -r cp np <<<"$(turn "$PLAIN" "$PORT_PLAIN" -H "Authorization: Bearer $TOKEN")"
    read -r cj nj <<<"$(turn "$JWT" "$PORT_JWT" -H "Authorization: Bearer $TOKEN")"
  else
    read -r cj nj <<<"$(turn "$JWT" "$PORT_JWT" -H "Authorization: Bearer $TOKEN")"
    read -r cp np <<<"$(turn "$PLAIN" "$PORT_PLAIN" -H "Authorization: Bearer $TOKEN")"
  fi
  r=$(awk -v a="$cp" -v b="$cj" 'BEGIN {printf "%.4f", b / a}')
  ratios+=("$r")
  echo "turn $i: plain $cp us/request ($np), jwtAuth $cj us/request ($nj), jwtAuth/plain $r"
done
echo "median jwtAuth/plain CPU per request, a remembered token: $(printf '%s\n' "${ratios[@]}" | median)"

if (( FRESH > 0 )); then # 2048 tokens in turn: more than the 1024 a rule remembers, so each is checked by signature
  for i in $(seq 2048); do token "user$i"; echo; done >"$TMP/tokens.txt"
  cat >"$TMP/fresh.lua" <<'LUA'
local tokens, i = {}, 0
for line in io.lines(os.getenv("TOKENS")) do tokens[#tokens + 1] = line end
request = function()
  i = i % #tokens + 1
  return wrk.format("GET", "/", { Authorization = "Bearer " .. tokens[i] })
end
LUA
  for round in $(seq "$FRESH"); do
    read -r cp np <<<"$(TOKENS=$TMP/tokens.txt turn "$PLAIN" "$PORT_PLAIN" -s "$TMP/fresh.lua")"
    read -r cj nj <<<"$(TOKENS=$TMP/tokens.txt turn "$JWT" "$PORT_JWT" -s "$TMP/fresh.lua")"
    echo "fresh tokens, round $round: plain $cp us/request ($np), jwtAuth $cj us/request ($nj)," \
      "a signature check $(awk -v a="$cp" -v b="$cj" 'BEGIN {printf "%.1f", b - a}') us"
  done
fi
