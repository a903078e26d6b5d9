#!/usr/bin/env bash
# Soak: the proxy under steady, bounded load for a long time, with a config reload every minute,
# sampling its RSS, open file descriptors and open connections. Memory and descriptors must stay flat.
#
#   bench/soak.sh                  # 30 minutes (MINUTES=30), results in bench/results/soak-<time>.tsv
#   MINUTES=2 bench/soak.sh        # a smoke run
#
# Load: wrk, CONNS connections (default 8), each waiting DELAY_MS (default 1) between requests, so the
# rate stays bounded (about CONNS * 1000 / DELAY_MS per second at most) and the machine stays usable.
# Half the requests are fixed responses, half go through the reverse proxy to an nginx upstream on
# loopback. The proxy runs with proxy/bin/strait-proxy (the container launcher); JAVA_HOME picks the JDK.
# Everything binds 127.0.0.1 and stops by itself (trap), also on Ctrl-C.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(cd "$BENCH_DIR/.." && pwd)
MINUTES=${MINUTES:-30}
CONNS=${CONNS:-8}
DELAY_MS=${DELAY_MS:-1}
SAMPLE_SECS=${SAMPLE_SECS:-30}

for tool in wrk nginx curl; do
  command -v "$tool" >/dev/null || { echo "soak: needs $tool (apt-get install wrk nginx curl)" >&2; exit 1; }
done
JAR="$ROOT_DIR/proxy/target/strait-proxy.jar"
[[ -f $JAR ]] || { echo "soak: build first: ./mvnw -B -q -pl model,proxy package -DskipTests" >&2; exit 1; }

TMP=$(mktemp -d /tmp/strait-soak.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port); ADMIN=$(free_port); APP=$(free_port)

sed -e "s|@TMP@|$TMP|g" -e "s|@APP_PORT@|$APP|g" "$BENCH_DIR/configs/upstream/nginx.conf" >"$TMP/nginx.conf"
nginx -c "$TMP/nginx.conf" -e "$TMP/nginx-error.log" >"$TMP/nginx.out" 2>&1 &
pids+=($!)

write_config() { # $1: a marker that changes the config's version
  cat >"$TMP/strait.yaml.new" <<EOF
accessLog: { enabled: false }
listeners: [ { name: http, address: "127.0.0.1:$PORT" } ]
admin: { address: "127.0.0.1:$ADMIN" }
upstreams: [ { name: app, endpoints: [ "127.0.0.1:$APP" ] } ]
routes:
  - name: soak
    hosts: [ "*" ]
    rules:
      - matches: [ { path: { type: Prefix, value: /proxy } } ]
        backends: [ { upstream: app } ]
      - respond: { body: "hello, world!\\n", headers: { x-generation: "$1" } }
EOF
  mv "$TMP/strait.yaml.new" "$TMP/strait.yaml"
}
write_config 0
STRAIT_CDS=off "$ROOT_DIR/proxy/bin/strait-proxy" --config "$TMP/strait.yaml" >"$TMP/strait.out" 2>&1 &
PROXY=$!
pids+=($PROXY)
for _ in $(seq 100); do
  curl -fsS -o /dev/null "http://127.0.0.1:$ADMIN/readyz" 2>/dev/null && break
  sleep 0.1
done
curl -fsS -o /dev/null "http://127.0.0.1:$PORT/proxy" || { echo "soak: proxy not serving" >&2; cat "$TMP/strait.out" >&2; exit 1; }
JPID=$(pgrep -P "$PROXY" java || echo "$PROXY")

cat >"$TMP/soak.lua" <<EOF
local n = 0
request = function()
  n = n + 1
  if n % 2 == 0 then return wrk.format("GET", "/proxy") end
  return wrk.format("GET", "/")
end
delay = function() return $DELAY_MS end
EOF
secs=$((MINUTES * 60))
wrk -t1 -c"$CONNS" -d"${secs}s" --latency -s "$TMP/soak.lua" "http://127.0.0.1:$PORT/" >"$TMP/wrk.out" 2>&1 &
WRK=$!
pids+=($WRK)

mkdir -p "$ROOT_DIR/bench/results"
out="$ROOT_DIR/bench/results/soak-$(date +%Y%m%d-%H%M%S).tsv"
printf 'seconds\trss_kib\tfds\tconnections\treloads\n' >"$out"
echo "soak: $MINUTES min, $CONNS connections, java $("${JAVA_HOME:+$JAVA_HOME/bin/}java" -version 2>&1 | head -1); samples in ${out#"$ROOT_DIR"/}" >&2
start=$(date +%s); reloads=0; next_reload=60
while kill -0 "$WRK" 2>/dev/null; do
  sleep "$SAMPLE_SECS"
  now=$(( $(date +%s) - start ))
  if (( now >= next_reload )); then
    reloads=$((reloads + 1)); next_reload=$((next_reload + 60)); write_config "$reloads"
  fi
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$JPID/status" 2>/dev/null || echo 0)
  fds=$(ls "/proc/$JPID/fd" 2>/dev/null | wc -l)
  conns=$(curl -fsS "http://127.0.0.1:$ADMIN/metrics" 2>/dev/null | awk '/^strait_connections_open / {print int($2)}')
  printf '%s\t%s\t%s\t%s\t%s\n' "$now" "$rss" "$fds" "${conns:-?}" "$reloads" | tee -a "$out" >&2
done
wait "$WRK" || true
cat "$TMP/wrk.out"
# Flat means: the last third's RSS within 10% of the middle third's, descriptors within 8.
python3 - "$out" <<'EOF'
import sys
rows = [l.split('\t') for l in open(sys.argv[1]).read().split('\n')[1:] if l]
if len(rows) < 6:
    print("soak: too few samples for a verdict"); sys.exit(0)
third = len(rows) // 3
mid = [int(r[1]) for r in rows[third:2 * third]]; last = [int(r[1]) for r in rows[2 * third:]]
fmid = [int(r[2]) for r in rows[third:2 * third]]; flast = [int(r[2]) for r in rows[2 * third:]]
rss_ok = max(last) <= max(mid) * 1.10
fd_ok = max(flast) <= max(fmid) + 8
print(f"soak: RSS middle third max {max(mid)//1024} MiB, last third max {max(last)//1024} MiB "
      f"({'flat' if rss_ok else 'GROWING'}); fds {max(fmid)} -> {max(flast)} ({'flat' if fd_ok else 'GROWING'})")
sys.exit(0 if rss_ok and fd_ok else 1)
EOF
