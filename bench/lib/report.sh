# Report for bench/run.sh: environment, per-cell summary (markdown, CSV), the chart, publishing
# into docs/benchmarks.md and docs/img/. Sourced.

ENV_LINES=()
first_line() { "$@" 2>&1 | awk 'NF && !n++' | oneline 160 || true; }

collect_environment() {
  local mem git_rev
  mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
  git_rev=$(git -C "$ROOT_DIR" rev-parse --short HEAD 2>/dev/null || echo "no commit")
  if [[ -n $(git -C "$ROOT_DIR" status --porcelain -- proxy model 2>/dev/null) ]]; then git_rev+=" (proxy/ or model/ modified)"; fi
  ENV_LINES+=("Machine: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) vCPU, $mem, kernel $(uname -r)")
  ENV_LINES+=("CPUs: servers on $SERVER_CPU, load generator on $CLIENT_CPU, applications behind the servers on $APP_CPU")
  ENV_LINES+=("Mode \`$MODE\`: $ROUNDS interleaved round(s) x ${SECS} s per cell; warm-up ${WARMUP} s (Strait, JIT) and ${WARMUP_OTHERS} s (others) per scenario; $CONNS connections")
  ENV_LINES+=("Load: \`wrk -t1 -c$CONNS -d${SECS}s --latency URL\`; tls-h2: \`h2load -t1 -c$CONNS -m$H2_STREAMS -D $SECS --log-file=F URL\` (p50/p99 from the log)")
  if [[ " $SERVERS " == *" strait "* ]]; then
    # shellcheck disable=SC2086
    local built="-"
    [[ -f $STRAIT_JAR ]] && built=$(date -u -r "$STRAIT_JAR" '+%Y-%m-%d %H:%M UTC')
    ENV_LINES+=("Strait: git $git_rev (jar built $built; the harness measures whatever jar is there), \`java ${JAVA_OPTS:+$JAVA_OPTS }-jar proxy/target/strait-proxy.jar\`, workers: 1; $(first_line java -version); JVM ergonomics on one CPU: \`$(taskset -c "$SERVER_CPU" java $JAVA_OPTS -XX:+PrintCommandLineFlags -version 2>&1 | awk 'NR == 1' | oneline 300)\`")
  fi
  [[ -n $(nginx_bin) ]] && ENV_LINES+=("nginx: $(first_line "$(nginx_bin)" -v | sed 's/^nginx version: //') (\`master_process off\`, 1 worker)")
  [[ -n $(haproxy_bin) ]] && ENV_LINES+=("haproxy: $(first_line "$(haproxy_bin)" -v | sed 's/ - https.*//; s/^HAProxy version //') (\`nbthread 1\`)")
  command -v caddy >/dev/null && ENV_LINES+=("caddy: $(first_line caddy version | awk '{print $1}') (\`GOMAXPROCS=1\`)")
  local apps="wrk $(first_line wrk -v | awk '{print $2}'); h2load $(first_line h2load --version | awk '{print $2}')"
  [[ -n $(phpfpm_bin) ]] && apps+="; $(first_line "$(phpfpm_bin)" -v | awk '{print $1, $2}') (pm static, $PHP_CHILDREN children)"
  command -v node >/dev/null && apps+="; node $(first_line node --version)"
  [[ -n $(python_bin) ]] && apps+="; uvicorn $("$(python_bin)" -c 'import uvicorn; print(uvicorn.__version__)' 2>/dev/null) on $(first_line "$(python_bin)" --version)"
  ENV_LINES+=("Load generators and applications: $apps; $(first_line openssl version | awk '{print $1, $2}')")
}

# Per-cell values, filled by summarize from raw.csv: numbers as they go into cells.csv, and the
# same formatted for the tables (V_KILO "135.0k", V_US1 "7.1", V_P50/V_P99 "460 us", V_HWM in MiB).
declare -A V_RPS=() V_RPSLO=() V_RPSHI=() V_SPREAD=() V_US=() V_USLO=() V_USHI=() V_CLI=() V_SC=() V_APP=()
declare -A V_P50US=() V_P99US=() V_P50=() V_P99=() V_HWMKB=() V_HWM=() V_ERR=() V_NON2XX=() V_FOREIGN=() V_UP=()
declare -A V_RRATIO=() V_CRATIO=() V_KILO=() V_US1=()

# One awk pass over raw.csv (a few thousand forks of small helpers took minutes on a busy machine).
summarize() {
  local key
  for key in "${!STATE[@]}"; do
    if [[ ${STATE[$key]} == measured && ${C_OK[$key]:-0} == 0 ]]; then
      STATE[$key]=failed; REASON[$key]="no successful round: ${C_NOTE[$key]%; }"
    fi
  done
  local f=() line
  while IFS=$'\t' read -r -a f; do
    key=${f[0]}
    V_RPS[$key]=${f[1]}; V_RPSLO[$key]=${f[2]}; V_RPSHI[$key]=${f[3]}; V_SPREAD[$key]=${f[4]}
    V_US[$key]=${f[5]}; V_USLO[$key]=${f[6]}; V_USHI[$key]=${f[7]}; V_CLI[$key]=${f[8]}; V_SC[$key]=${f[9]}
    V_APP[$key]=${f[10]}; V_P50US[$key]=${f[11]}; V_P99US[$key]=${f[12]}; V_P50[$key]=${f[13]}; V_P99[$key]=${f[14]}
    V_ERR[$key]=${f[15]}; V_NON2XX[$key]=${f[16]}; V_FOREIGN[$key]=${f[17]}; V_UP[$key]=${f[18]}
    V_HWMKB[$key]=${f[19]}; V_HWM[$key]=${f[20]}; V_RRATIO[$key]=${f[21]}; V_CRATIO[$key]=${f[22]}
    V_KILO[$key]=${f[23]}; V_US1[$key]=${f[24]}
  done < <(awk -F, '
    function isnum(x) { return x ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ }
    function add(a, k, x) { if (isnum(x)) { a[k, ++a[k, "n"]] = x + 0 } }
    function sorted(a, k, out,   n, i, j, t) {
      n = a[k, "n"] + 0
      for (i = 1; i <= n; i++) out[i] = a[k, i]
      for (i = 2; i <= n; i++) { t = out[i]; for (j = i - 1; j >= 1 && out[j] > t; j--) out[j + 1] = out[j]; out[j + 1] = t }
      return n
    }
    function med(a, k,   s, n) { n = sorted(a, k, s); if (n == 0) return "-"; return n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2 }
    function lo(a, k,   s, n) { n = sorted(a, k, s); return n ? s[1] : "-" }
    function hi(a, k,   s, n) { n = sorted(a, k, s); return n ? s[n] : "-" }
    function f(fmt, x) { return x == "-" ? "-" : sprintf(fmt, x) }
    function lat(u) { return u == "-" ? "-" : (u >= 1000 ? sprintf("%.2f ms", u / 1000) : sprintf("%.0f us", u)) }
    function kilo(x) { return x == "-" ? "-" : (x >= 10000 ? sprintf("%.1fk", x / 1000) : sprintf("%.0f", x)) }
    NR > 1 {
      k = $3 "|" $4; if (!(k in seen)) { seen[k] = 1; keys[++nk] = k; scen[k] = $3 }
      add(rps, k, $8); add(us, k, $9); add(cli, k, $10); add(app, k, $11); add(p50, k, $12); add(p99, k, $13)
      add(up, k, $18); err[k] += $14; non2xx[k] += $15
      if (!(k in fmax) || $16 + 0 > fmax[k]) fmax[k] = $16 + 0
      if (isnum($20) && $20 + 0 > hwm[k]) hwm[k] = $20 + 0
    }
    END {
      for (i = 1; i <= nk; i++) { k = keys[i]; mr[k] = med(rps, k); mu[k] = med(us, k) }
      for (i = 1; i <= nk; i++) {
        k = keys[i]; n = scen[k] "|nginx"
        spread = mr[k] > 0 ? (hi(rps, k) - lo(rps, k)) / mr[k] * 100 : 0
        mc = med(cli, k); ma = med(app, k); m50 = med(p50, k); m99 = med(p99, k); mup = med(up, k)
        rr = (n in mr) && mr[n] > 0 ? sprintf("%.2f", mr[k] / mr[n]) : "-"
        cr = (n in mu) && mu[n] > 0 ? sprintf("%.2f", mu[k] / mu[n]) : "-"
        printf "%s\t%.0f\t%.0f\t%.0f\t%.1f\t%.2f\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
          k, mr[k], lo(rps, k), hi(rps, k), spread, mu[k], lo(us, k), hi(us, k), f("%.2f", mc),
          (mc == "-" ? "-" : sprintf("%.2f", mu[k] + mc)), f("%.2f", ma), f("%.0f", m50), f("%.0f", m99), lat(m50), lat(m99),
          err[k], non2xx[k], fmax[k], f("%.3f", mup), (k in hwm ? hwm[k] : "-"), (k in hwm ? sprintf("%.1f", hwm[k] / 1024) : "-"),
          rr, cr, kilo(mr[k]), sprintf("%.1f", mu[k])
      }
    }' "$RAW_CSV")
}

server_title() { case $1 in strait) echo Strait ;; *) echo "$1" ;; esac; }
cell_short() { # the overview table's cell
  local key=$1
  case ${STATE[$key]:-} in
    measured) echo "${V_KILO[$key]} req/s, ${V_US1[$key]} us" ;;
    na) echo "n/a" ;;
    unsupported) echo "not supported yet" ;;
    skipped) echo "skipped" ;;
    *) echo "FAILED" ;;
  esac
}

write_report() {
  summarize
  local sc srv key md="$OUT_DIR/report.md" cells="$OUT_DIR/cells.csv"
  echo "run,mode,scenario,server,state,rounds_ok,rps_median,rps_min,rps_max,rps_spread_pct,server_us_per_req,server_us_min,server_us_max,client_us_per_req,server_plus_client_us_per_req,app_us_per_req,p50_us,p99_us,peak_rss_kb,errors,non2xx,foreign_cpu_max_pct,upstream_requests_per_request,rps_vs_nginx,cpu_per_req_vs_nginx,reason_or_notes" >"$cells"
  for sc in $SCENARIOS; do
    for srv in $SERVERS; do
      key="$sc|$srv"
      local note=${REASON[$key]:-${C_NOTE[$key]:-}}; note=${note%; }
      echo "$RUN_ID,$MODE,$sc,$srv,${STATE[$key]:-},${C_OK[$key]:-0},${V_RPS[$key]:-},${V_RPSLO[$key]:-},${V_RPSHI[$key]:-},${V_SPREAD[$key]:-},${V_US[$key]:-},${V_USLO[$key]:-},${V_USHI[$key]:-},${V_CLI[$key]:-},${V_SC[$key]:-},${V_APP[$key]:-},${V_P50US[$key]:-},${V_P99US[$key]:-},${V_HWMKB[$key]:-},${V_ERR[$key]:-},${V_NON2XX[$key]:-},${V_FOREIGN[$key]:-},${V_UP[$key]:-},${V_RRATIO[$key]:-},${V_CRATIO[$key]:-},\"${note//\"/\'}\"" >>"$cells"
    done
  done
  make_chart
  {
    echo "### Run \`$RUN_ID\` ($(date '+%Y-%m-%d %H:%M %Z'))"
    echo
    [[ -n $LABEL ]] && { echo "> **$LABEL**"; echo; }
    echo "Each cell: median requests/s over the rounds, and the server's CPU microseconds per request"
    echo "(lower is better; the number that separates servers when the load generator is the limit)."
    echo
    local head="| scenario |" sep="|---|"
    for srv in $SERVERS; do head+=" $(server_title "$srv") |"; sep+="---|"; done
    if [[ " $SERVERS " == *" strait "* && " $SERVERS " == *" nginx "* ]]; then head+=" Strait / nginx (req/s, CPU/req) |"; sep+="---|"; fi
    echo "$head"; echo "$sep"
    for sc in $SCENARIOS; do
      local row="| $sc |"
      for srv in $SERVERS; do row+=" $(cell_short "$sc|$srv") |"; done
      if [[ " $SERVERS " == *" strait "* && " $SERVERS " == *" nginx "* ]]; then
        if [[ -n ${V_RRATIO["$sc|strait"]:-} && ${V_RRATIO["$sc|strait"]} != "-" ]]; then
          row+=" ${V_RRATIO["$sc|strait"]}x, ${V_CRATIO["$sc|strait"]}x |"
        else row+=" - |"; fi
      fi
      echo "$row"
    done
    echo
    if [[ -f $OUT_DIR/chart.png ]]; then
      echo "![Requests/s and CPU per request relative to nginx, per scenario](@CHART@)"
      echo
    fi
    echo "<details><summary>All columns</summary>"
    echo
    echo "| scenario | server | req/s median | req/s min-max (spread) | server CPU us/req (min-max) | server+client us/req | app us/req | p50 | p99 | peak RSS MiB | errors / non-2xx | vs nginx: req/s, CPU/req | status |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for sc in $SCENARIOS; do
      for srv in $SERVERS; do
        key="$sc|$srv"
        local note=${C_NOTE[$key]:-}; note=${note%; }
        case ${STATE[$key]:-} in
          measured)
            local status="ok (${C_OK[$key]}/$ROUNDS rounds)"
            [[ -n $note ]] && status+="; $note"
            [[ ${V_UP[$key]:-"-"} != "-" ]] && status+="; upstream requests per request ${V_UP[$key]}"
            echo "| $sc | $(server_title "$srv") | ${V_RPS[$key]} | ${V_RPSLO[$key]}-${V_RPSHI[$key]} (${V_SPREAD[$key]}%) | ${V_US[$key]} (${V_USLO[$key]}-${V_USHI[$key]}) | ${V_SC[$key]} | ${V_APP[$key]} | ${V_P50[$key]} | ${V_P99[$key]} | ${V_HWM[$key]} | ${V_ERR[$key]} / ${V_NON2XX[$key]} | ${V_RRATIO[$key]}, ${V_CRATIO[$key]} | ${status//|//} |" ;;
          na) echo "| $sc | $(server_title "$srv") | - | - | - | - | - | - | - | - | - | - | n/a: ${REASON[$key]//|//} |" ;;
          unsupported) echo "| $sc | $(server_title "$srv") | - | - | - | - | - | - | - | - | - | - | not supported yet: ${REASON[$key]//|//} |" ;;
          skipped) echo "| $sc | $(server_title "$srv") | - | - | - | - | - | - | - | - | - | - | skipped: ${REASON[$key]} |" ;;
          *) echo "| $sc | $(server_title "$srv") | - | - | - | - | - | - | - | - | - | - | FAILED: ${REASON[$key]:-not run} |" ;;
        esac
      done
    done
    echo
    echo "</details>"
    echo
    local any=0
    for sc in $SCENARIOS; do for srv in $SERVERS; do
      case ${STATE["$sc|$srv"]:-} in unsupported | failed) any=1 ;; esac
    done; done
    if ((any)); then
      echo "Cells not measured:"
      echo
      for sc in $SCENARIOS; do for srv in $SERVERS; do
        key="$sc|$srv"
        case ${STATE[$key]:-} in
          unsupported) echo "- $sc / $(server_title "$srv"): not supported yet: ${REASON[$key]}" ;;
          failed) echo "- $sc / $(server_title "$srv"): FAILED: ${REASON[$key]:-not run}" ;;
        esac
      done; done
      echo
    fi
    if [[ " $SERVERS " == *" strait "* ]]; then
      local st=""
      for sc in $SCENARIOS; do [[ -n ${STRAIT_STARTUP_MS[$sc]:-} ]] && st+="$sc ${STRAIT_STARTUP_MS[$sc]}, "; done
      [[ -n $st ]] && { echo "Strait start to \`/readyz\` 200 (20 ms polling): ${st%, }."; echo; }
    fi
    echo "Environment:"
    echo
    local l
    for l in "${ENV_LINES[@]}"; do echo "- $l"; done
    for sc in $SCENARIOS; do [[ -n ${SCENARIO_APP_DESC[$sc]:-} ]] && echo "- $sc: behind the servers, ${SCENARIO_APP_DESC[$sc]}"; done
    echo "- Server commands (\`<kind>\`: the scenario's config in bench/configs/<server>/, rendered into a temp dir):"
    for srv in $SERVERS; do [[ -n ${SERVER_CMD[$srv]:-} ]] && echo "  \`${SERVER_CMD[$srv]}\`"; done
    echo "- Reproduce: \`$(cmdline)\`"
  } | sed "s#@CHART@#chart.png#" >"$md"
  cat "$md"
}

cmdline() { # the settings that differ from the mode's defaults, and the command
  local v out=""
  for v in ROUNDS SECS WARMUP WARMUP_OTHERS SCENARIOS SERVERS CONNS H2_STREAMS PHP_CHILDREN JAVA_OPTS STRAIT_TRANSPORT SERVER_CPU CLIENT_CPU APP_CPU; do
    [[ -n ${CMDLINE_ENV[$v]:-} ]] && out+="$v=\"${CMDLINE_ENV[$v]}\" "
  done
  echo "${out}bench/run.sh $MODE"
}

# ---------------------------------------------------------------- chart
make_chart() {
  local dat="$OUT_DIR/chart.csv" sc srv v c
  command -v gnuplot >/dev/null || { log "gnuplot not found: no chart"; return 0; }
  local others=()
  for srv in $SERVERS; do [[ $srv == nginx ]] || others+=("$srv"); done
  if [[ " $SERVERS " != *" nginx "* ]] || ((${#others[@]} == 0)); then log "no chart: it needs nginx and another server"; return 0; fi
  {
    printf 'scenario'; for srv in "${others[@]}"; do printf ',%s req/s' "$srv"; done
    for srv in "${others[@]}"; do printf ',%s cpu' "$srv"; done; echo
    for sc in $SCENARIOS; do
      local label=$sc
      [[ ${STATE["$sc|strait"]:-} == unsupported ]] && label+="\\n(Strait: not yet)"
      printf '"%s"' "$label"
      for srv in "${others[@]}"; do v=${V_RRATIO["$sc|$srv"]:-?}; [[ $v == - ]] && v='?'; printf ',%s' "$v"; done
      for srv in "${others[@]}"; do c=${V_CRATIO["$sc|$srv"]:-?}; [[ $c == - ]] && c='?'; printf ',%s' "$c"; done
      echo
    done
  } >"$dat"
  local n=${#others[@]} i plot1="" plot2="" colors=("#1b9e77" "#7570b3" "#d95f02" "#e7298a")
  for ((i = 0; i < n; i++)); do
    local title; title=$(server_title "${others[$i]}")
    plot1+="'$dat' using $((i + 2)):xtic(1) title '$title' lc rgb '${colors[$i]}', "
    plot2+="'$dat' using $((i + 2 + n)):xtic(1) title '$title' lc rgb '${colors[$i]}', "
  done
  local title="Relative to nginx on the same core (run $RUN_ID)"
  [[ -n $LABEL ]] && title+="\\n$LABEL"
  cat >"$OUT_DIR/chart.gp" <<EOF
set terminal pngcairo size 1400,900 font "sans,10"
set output '$OUT_DIR/chart.png'
set datafile separator ','
set datafile missing '?'
set key autotitle columnhead
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set yrange [0:*]
set bmargin 4
set xtics noenhanced
set key noenhanced top right
set multiplot layout 2,1 title "$title" noenhanced
set title "requests/s relative to nginx (higher is better; 1 = nginx)"
set ylabel "x nginx"
plot ${plot1}1 with lines dt 2 lc rgb 'black' notitle
set title "server CPU per request relative to nginx (lower is better; 1 = nginx)"
plot ${plot2}1 with lines dt 2 lc rgb 'black' notitle
unset multiplot
EOF
  if ! timeout 60 gnuplot "$OUT_DIR/chart.gp" >"$OUT_DIR/logs/gnuplot.log" 2>&1; then
    log "gnuplot failed: $(oneline <"$OUT_DIR/logs/gnuplot.log")"; rm -f "$OUT_DIR/chart.png"
  fi
}

# ---------------------------------------------------------------- docs/benchmarks.md
publish_report() {
  local doc="$ROOT_DIR/docs/benchmarks.md" img="$ROOT_DIR/docs/img/benchmarks.png"
  grep -q '<!-- bench:results:begin -->' "$doc" 2>/dev/null || { log "no results markers in $doc: not published"; return 0; }
  mkdir -p "$(dirname "$img")"
  if [[ -f $OUT_DIR/chart.png ]]; then cp "$OUT_DIR/chart.png" "$img"; fi
  sed "s#(chart.png)#(img/benchmarks.png)#" "$OUT_DIR/report.md" >"$TMP/section.md"
  awk -v f="$TMP/section.md" '
    /<!-- bench:results:begin -->/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
    /<!-- bench:results:end -->/ { skip = 0 }
    !skip { print }' "$doc" >"$TMP/doc.md"
  cp "$TMP/doc.md" "$doc"
  log "published into docs/benchmarks.md and docs/img/benchmarks.png"
}
