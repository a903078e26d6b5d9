# Load generation and one measured run, for bench/run.sh. Sourced.

# run_load SCENARIO URL SECS OUTFILE: wrk (HTTP/1.1, cleartext or TLS) or h2load (HTTP/2 over TLS),
# pinned to CLIENT_CPU, bounded by timeout; sets LOAD_RC. h2load also writes OUTFILE.lat (one line
# per request: start, status, microseconds), from which p50/p99 are taken (h2load prints none).
LOAD_PID=""
run_load() {
  local sc=$1 url=$2 secs=$3 out=$4
  local ask=()
  LOAD_RC=0
  local accept
  accept=$(scenario_accept_encoding "$sc") && ask=(-H "Accept-Encoding: $accept")
  local upload
  if upload=$(scenario_upload "$sc"); then # wrk POSTs the file's bytes with every request
    printf 'local f = io.open("%s", "rb")\nwrk.method = "POST"\nwrk.body = f:read("*a")\nf:close()\nwrk.headers["Content-Type"] = "application/octet-stream"\n' \
      "$upload" >"$TMP/upload.lua"
    ask+=(-s "$TMP/upload.lua")
  fi
  case $(scenario_loader "$sc") in
    wrk)
      timeout -k 5 $((secs + 30)) taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${secs}s" --latency "${ask[@]}" "$url" >"$out" 2>&1 & ;;
    h2load)
      timeout -k 5 $((secs + 30)) taskset -c "$CLIENT_CPU" h2load -t1 -c"$CONNS" -m"$H2_STREAMS" -D "$secs" \
        --log-file="$out.lat" "$url" >"$out" 2>&1 & ;;
  esac
  LOAD_PID=$!
  wait "$LOAD_PID" || LOAD_RC=$?
  LOAD_PID=""
}

# parse_load SCENARIO OUTFILE: sets REQS RPS P50 P99 (microseconds) ERRS NON2XX, or returns 1.
parse_load() {
  local sc=$1 out=$2
  REQS=""; RPS=""; P50="-"; P99="-"; ERRS=0; NON2XX=0
  case $(scenario_loader "$sc") in
    wrk)
      REQS=$(awk '/requests in/ {print $1; exit}' "$out")
      RPS=$(awk '/^Requests\/sec:/ {print $2; exit}' "$out")
      local p50 p99
      p50=$(awk '$1 == "50%" {print $2; exit}' "$out"); p99=$(awk '$1 == "99%" {print $2; exit}' "$out")
      [[ -n $p50 ]] && P50=$(lat_us "$p50"); [[ -n $p99 ]] && P99=$(lat_us "$p99")
      ERRS=$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10; exit }' "$out")
      NON2XX=$(awk '/Non-2xx or 3xx responses:/ {print $5; exit}' "$out") ;;
    h2load)
      # requests: N total, N started, N done, N succeeded, N failed, N errored, N timeout
      REQS=$(awk '/^requests:/ {print $8; exit}' "$out")
      RPS=$(awk '/^finished in/ { gsub(",", ""); print $4; exit }' "$out")
      ERRS=$(awk '/^requests:/ {print $10 + $12 + $14; exit}' "$out")
      NON2XX=$(awk '/^status codes:/ {print $5 + $7 + $9; exit}' "$out")
      if [[ -s $out.lat ]]; then
        read -r P50 P99 < <(awk -F'\t' '$2 != -1 {print $3}' "$out.lat" | sort -n |
          awk '{a[NR] = $1} END { if (NR == 0) { print "- -"; exit }
               i = int(NR * 0.50); if (i < 1) i = 1; j = int(NR * 0.99); if (j < 1) j = 1; print a[i], a[j] }')
      fi ;;
  esac
  ERRS=${ERRS:-0}; NON2XX=${NON2XX:-0}
  [[ -n $REQS && -n $RPS && $REQS != 0 ]]
}

warm() { # server scenario secs: unmeasured load (JIT warm-up for Strait, caches for all)
  local srv=$1 sc=$2 secs=$3 rest
  (( secs > 0 )) || return 0
  log "warm-up $sc/$srv ${secs}s"
  # In two runs when there is time, with the body check's request between them: the load generator's
  # connections close and new ones open, and a request of another shape (curl's headers) arrives,
  # before measuring, as both happen all the time under real traffic. Otherwise the first measured
  # round is the first time a JIT sees a connection close or curl's request (each round starts with
  # the body check), and C2 recompiles the hottest methods inside it.
  rest=$(( secs >= 4 ? secs / 3 : 0 ))
  run_load "$sc" "$(scenario_url "$srv" "$sc")" "$(( secs - rest ))" "$TMP/warm.out"
  (( rest == 0 )) && return 0
  check_body "$srv" "$sc" || true
  run_load "$sc" "$(scenario_url "$srv" "$sc")" "$rest" "$TMP/warm.out"
}

# measure SERVER SCENARIO ROUND: body check, then one run, one line in raw.csv (report.sh summarizes
# it); C_OK counts the rounds that counted, C_NOTE collects what went wrong or looked disturbed.
declare -A C_OK=() C_NOTE=()
measure() {
  local srv=$1 sc=$2 r=$3 key="$2|$1" pid
  pid=${PIDS[$srv]:-}
  if [[ -z $pid ]] || ! kill -0 "$pid" 2>/dev/null; then
    C_NOTE[$key]+="round $r: server process gone; "; return 0
  fi
  if ! check_body "$srv" "$sc"; then
    C_NOTE[$key]+="round $r: $CHECK_MSG; "
    log "$sc/$srv round $r: $CHECK_MSG"
    return 0
  fi
  local url out="$TMP/logs/$sc-$srv-r$r.out" up0="-" up1="-"
  url=$(scenario_url "$srv" "$sc")
  [[ $(scenario_app "$sc") == upstream-nginx ]] && up0=$(upstream_requests)
  local s0 s1 a0 a1 b0 b1 c0 c1 t0 t1
  # shellcheck disable=SC2086  # APP_PIDS is a list
  children_ms; c0=$CHILD_MS; read -r b0 q0 <<<"$(sys_busy_ticks)"; a0=$(pids_ticks $APP_PIDS); s0=$(proc_ticks "$pid"); t0=$(now_ns)
  run_load "$sc" "$url" "$SECS" "$out"
  # shellcheck disable=SC2086
  s1=$(proc_ticks "$pid"); a1=$(pids_ticks $APP_PIDS); read -r b1 q1 <<<"$(sys_busy_ticks)"; t1=$(now_ns); children_ms; c1=$CHILD_MS
  [[ $up0 != "-" ]] && up1=$(upstream_requests)
  if ((LOAD_RC != 0)); then
    C_NOTE[$key]+="round $r: $(scenario_loader "$sc") failed rc=$LOAD_RC: $(tail -n 2 "$out" | oneline 120); "
    log "$sc/$srv round $r: load generator failed (rc=$LOAD_RC): $(tail -n 3 "$out" | oneline)"
    return 0
  fi
  if ! parse_load "$sc" "$out"; then
    C_NOTE[$key]+="round $r: no requests completed; "
    log "$sc/$srv round $r: no requests completed: $(oneline 300 <"$out")"
    return 0
  fi
  local server_ticks app_ticks cli_ticks win_ticks uspr cli app foreign softirq upshare="-"
  server_ticks=$((s1 - s0)); app_ticks=$((a1 - a0))
  cli_ticks=$(awk -v ms=$((c1 - c0)) -v t="$CLK_TCK" 'BEGIN{printf "%.0f", ms * t / 1000}')
  win_ticks=$(awk -v ns=$((t1 - t0)) -v t="$CLK_TCK" 'BEGIN{printf "%.2f", ns / 1e9 * t}')
  uspr=$(awk -v k="$server_ticks" -v t="$CLK_TCK" -v n="$REQS" 'BEGIN{printf "%.2f", k / t * 1e6 / n}')
  cli=$(awk -v k="$cli_ticks" -v t="$CLK_TCK" -v n="$REQS" 'BEGIN{printf "%.2f", k / t * 1e6 / n}')
  softirq=$(awk -v k=$((q1 - q0)) -v t="$CLK_TCK" -v n="$REQS" 'BEGIN{printf "%.2f", k / t * 1e6 / n}')
  app="-"
  [[ -n ${APP_PIDS// /} ]] && app=$(awk -v k="$app_ticks" -v t="$CLK_TCK" -v n="$REQS" 'BEGIN{printf "%.2f", k / t * 1e6 / n}')
  foreign=$(awk -v b=$((b1 - b0)) -v s="$server_ticks" -v c="$cli_ticks" -v a="$app_ticks" -v win="$win_ticks" \
    'BEGIN{f = (b - s - c - a) / win * 100; if (f < 0) f = 0; printf "%.1f", f}')
  # Requests that reached the upstream per client request (the status request itself excluded).
  [[ $up0 != "-" && $up1 != "-" ]] && upshare=$(awk -v a="$up0" -v b="$up1" -v n="$REQS" 'BEGIN{printf "%.3f", (b - a - 1) / n}')
  C_OK[$key]=$(( ${C_OK[$key]:-0} + 1 ))
  local rss hwm
  rss=$(status_kb "$pid" VmRSS); hwm=$(status_kb "$pid" VmHWM)
  if awk -v f="$foreign" -v w="$FOREIGN_WARN" 'BEGIN{exit !(f > w)}'; then
    C_NOTE[$key]+="round $r: foreign CPU ${foreign}% (disturbed); "
  fi
  if [[ $sc == cache-hit && $upshare != "-" ]] && awk -v u="$upshare" 'BEGIN{exit !(u > 0.01)}'; then
    C_NOTE[$key]+="round $r: $(awk -v u="$upshare" 'BEGIN{printf "%.0f", u * 100}')% of requests reached the upstream (not cached); "
  fi
  echo "$RUN_ID,$MODE,$sc,$srv,$r,$REQS,$SECS,$RPS,$uspr,$cli,$app,$P50,$P99,$ERRS,$NON2XX,$foreign,$softirq,$upshare,${rss:-},${hwm:-}" >>"$RAW_CSV"
  log "$sc/$srv round $r: $RPS req/s, server $uspr us/req, client $cli, app $app, p50 $(fmt_lat "$P50"), p99 $(fmt_lat "$P99"), errors $ERRS, non-2xx $NON2XX, foreign ${foreign}%$([[ $upshare == - ]] || echo ", upstream requests per request $upshare")"
}
