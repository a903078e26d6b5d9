#!/usr/bin/env bash
# JMH microbenchmarks: route lookup (1k and 10k routes), request-head parsing and upstream-response decoding.
#
#   bench/jmh/run.sh                       # everything, settings of each class (about 7 min)
#   bench/jmh/run.sh -f1 -wi 1 -i 1        # a smoke run
#   bench/jmh/run.sh RouteLookup -prof gc  # one class, with allocation per operation
#   bench/jmh/run.sh -l                    # list the benchmarks
#
# Arguments go to JMH (org.openjdk.jmh.Main). Builds target/benchmarks.jar from the current proxy/
# and model/ sources first (a standalone Maven project, not part of the main build). The forked
# benchmark JVM is pinned to CPU JMH_CPU (default 0) when taskset exists and JMH_CPU is not empty.
set -euo pipefail
JMH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(cd "$JMH_DIR/../.." && pwd)
JMH_CPU=${JMH_CPU-0}

echo "[jmh] building bench/jmh/target/benchmarks.jar" >&2
(cd "$ROOT_DIR" && timeout -k 10 "${BUILD_TIMEOUT:-900}" ./mvnw -q -B -f bench/jmh/pom.xml package) || {
  echo "[jmh] build failed" >&2; exit 1; }

pin=()
if [[ -n $JMH_CPU ]] && command -v taskset >/dev/null; then pin=(taskset -c "$JMH_CPU"); fi
mkdir -p "$ROOT_DIR/bench/results"
out="$ROOT_DIR/bench/results/jmh-$(date +%Y%m%d-%H%M%S).json"
echo "[jmh] results also in ${out#"$ROOT_DIR"/}" >&2
exec "${pin[@]}" java -jar "$JMH_DIR/target/benchmarks.jar" -rf json -rff "$out" "$@"
