# Scenarios, the servers under test and the upstream applications, for bench/run.sh. Sourced.

ALL_SCENARIOS="respond static-small static-1m gzip-static browser-static proxy proxy-unix cache-hit tls-h2-static-small tls-static-1m php node python auth auth-cached mirror upload"
ALL_SERVERS="nginx haproxy caddy strait"

# ---------------------------------------------------------------- scenarios
# scenario_* NAME: what the scenario asks, which config kind each server loads, what runs behind.
scenario_kind() { # the config file each server loads: bench/configs/<server>/<kind>.*
  case $1 in
    respond) echo respond ;;
    static-small | static-1m) echo static ;;
    gzip-static | browser-static) echo gzip ;;
    proxy | node | python) echo proxy ;;
    proxy-unix) echo proxy-unix ;;
    cache-hit) echo cache ;;
    tls-h2-static-small | tls-static-1m) echo tls-static ;;
    php) echo php ;;
    auth) echo auth ;;
    auth-cached) echo auth-cached ;;
    mirror) echo mirror ;;
    upload) echo upload ;;
    *) return 1 ;;
  esac
}
scenario_path() {
  case $1 in
    respond) echo /hello ;;
    static-small | tls-h2-static-small) echo /hello.txt ;;
    static-1m | tls-static-1m) echo /1m.bin ;;
    gzip-static | browser-static) echo /page.html ;;
    proxy | proxy-unix | auth | auth-cached | mirror) echo /api/hello ;;
    upload) echo /api/upload ;;
    cache-hit) echo /cached/hello ;;
    php) echo /hello.php ;;
    node) echo /node/hello ;;
    python) echo /python/hello ;;
  esac
}
scenario_accept_encoding() { # what the scenario's client takes; a compressed answer must come
  case $1 in
    gzip-static) echo gzip ;;                       # the answer must be gzip
    browser-static) echo 'gzip, deflate, br, zstd' ;; # a browser's: each server answers in its best (nginx: gzip)
    *) return 1 ;;
  esac
}
scenario_upload() { # the body the scenario's client POSTs, as a file; none: the scenario GETs
  case $1 in
    upload) echo "$TMP/www/upload.bin" ;;
    *) return 1 ;;
  esac
}
scenario_scheme() { case $1 in tls-*) echo https ;; *) echo http ;; esac; }
scenario_loader() { case $1 in tls-h2-*) echo h2load ;; *) echo wrk ;; esac; }
scenario_app() { # what runs behind the server on APP_CPU
  case $1 in
    proxy | proxy-unix | cache-hit | auth | auth-cached | mirror | upload) echo upstream-nginx ;;
    node) echo node ;;
    python) echo python ;;
    php) echo php-fpm ;;
    *) echo none ;;
  esac
}
scenario_expected() { # the exact body every server must send
  case $1 in
    static-small | tls-h2-static-small) echo "$TMP/www/hello.txt" ;;
    static-1m | tls-static-1m) echo "$TMP/www/1m.bin" ;;
    gzip-static | browser-static) echo "$TMP/www/page.html" ;;  # once decoded: the answer itself must be encoded
    *) echo "$TMP/www/respond-body.txt" ;;
  esac
}
server_na() { # prints why a server has no equivalent for the scenario (the cell reads "n/a")
  case $1/$2 in
    haproxy/static-small | haproxy/static-1m | haproxy/tls-h2-static-small | haproxy/tls-static-1m | haproxy/gzip-static | haproxy/browser-static)
      echo "haproxy serves no static files" ;;
    caddy/cache-hit) echo "stock caddy has no response cache" ;;
    haproxy/auth | haproxy/auth-cached) echo "haproxy has no auth subrequest without Lua" ;;
    caddy/auth-cached) echo "caddy's forward_auth keeps no answers" ;;
    haproxy/mirror) echo "haproxy mirrors only through an SPOE agent" ;;
    caddy/mirror) echo "stock caddy has no request mirroring" ;;
    haproxy/upload) echo "haproxy buffers a request body only up to its buffer (16 KiB), never to disk" ;;
    caddy/upload) echo "caddy buffers request bodies only in memory (request_buffers)" ;;
  esac
}

server_port() {
  case $1 in
    nginx) echo "$NGINX_PORT" ;; haproxy) echo "$HAPROXY_PORT" ;;
    caddy) echo "$CADDY_PORT" ;; strait) echo "$STRAIT_PORT" ;;
  esac
}
php_port() { # each server has its own php-fpm pool (see configs/upstream/php-fpm-pool.conf)
  case $1 in nginx) echo "$PHP_PORT" ;; haproxy) echo $((PHP_PORT + 1)) ;; caddy) echo $((PHP_PORT + 2)) ;; strait) echo $((PHP_PORT + 3)) ;; esac
}
scenario_url() { echo "$(scenario_scheme "$2")://127.0.0.1:$(server_port "$1")$(scenario_path "$2")"; }

nginx_bin() { command -v nginx 2>/dev/null || { [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx; } || true; }
haproxy_bin() { command -v haproxy 2>/dev/null || { [[ -x /usr/sbin/haproxy ]] && echo /usr/sbin/haproxy; } || true; }
phpfpm_bin() { command -v php-fpm8.2 2>/dev/null || { [[ -x /usr/sbin/php-fpm8.2 ]] && echo /usr/sbin/php-fpm8.2; } ||
  command -v php-fpm 2>/dev/null || ls /usr/sbin/php-fpm* 2>/dev/null | head -n 1 || true; }
python_bin() { # a python3 that has uvicorn (Debian's, not a pyenv or venv one without it)
  local p
  for p in ${PYTHON:-} /usr/bin/python3 python3; do
    command -v "$p" >/dev/null 2>&1 && "$p" -c 'import uvicorn' 2>/dev/null && { command -v "$p"; return; }
  done
  true
}

# ---------------------------------------------------------------- body check
# check_body SERVER SCENARIO: 0 when the answer is 200 with exactly the expected body (and HTTP/2
# where the scenario is HTTP/2); else 1 with CHECK_MSG saying what came back.
check_body() {
  local srv=$1 sc=$2 url flags=(-sS --max-time 5 -o "$TMP/got" -D "$TMP/got.head" -w '%{http_code} %{http_version}')
  local out code ver accept coding
  url=$(scenario_url "$srv" "$sc")
  [[ $(scenario_scheme "$sc") == https ]] && flags+=(--cacert "$TMP/cert.pem")
  case $(scenario_loader "$sc") in h2load) flags+=(--http2) ;; *) flags+=(--http1.1) ;; esac
  accept=$(scenario_accept_encoding "$sc") && flags+=(-H "Accept-Encoding: $accept")
  local upload
  upload=$(scenario_upload "$sc") && flags+=(--data-binary "@$upload" -H "Content-Type: application/octet-stream")
  rm -f "$TMP/got" "$TMP/got.head"
  out=$(timeout 10 curl "${flags[@]}" "$url" 2>"$TMP/curl.err") || out="000 -"
  read -r code ver <<<"$out"
  if [[ -n $accept ]]; then # what came must be encoded in a coding the client takes, and decode to the page
    coding=$(awk -F': *' 'tolower($1) == "content-encoding" {gsub("\r", "", $2); print $2}' "$TMP/got.head" 2>/dev/null)
    case $coding in
      gzip) gunzip -c <"$TMP/got" >"$TMP/got.plain" 2>/dev/null ;;
      zstd) zstd -qdc <"$TMP/got" >"$TMP/got.plain" 2>/dev/null ;;
      *) false ;;
    esac && [[ ", $accept," == *", $coding,"* ]] && mv "$TMP/got.plain" "$TMP/got" || code="$code (not in $accept: '${coding:-identity}')"
  fi
  if [[ $code == 200 ]] && cmp -s "$(scenario_expected "$sc")" "$TMP/got"; then
    if [[ $(scenario_loader "$sc") == h2load && $ver != 2 ]]; then
      CHECK_MSG="body check failed: answered over HTTP/$ver, not HTTP/2"; return 1
    fi
    return 0
  fi
  local got
  got=$(head -c 60 "$TMP/got" 2>/dev/null | perl -0777 -pe 's/\\/\\\\/g; s/\n/\\n/g; s/([^[:print:]])/sprintf("\\x%02x", ord $1)/ge' || true)
  CHECK_MSG="body check failed: ${upload:+POST}${upload:-GET} $(scenario_path "$sc"): status $code, $(stat -c %s "$TMP/got" 2>/dev/null || echo 0) bytes \"$got\" $(oneline 160 <"$TMP/curl.err")"
  return 1
}

# ---------------------------------------------------------------- servers under test
# start_server SERVER SCENARIO: renders the server's config for the scenario's kind, starts it
# pinned to SERVER_CPU and waits until it listens. On failure: returns 1 with START_MSG; for Strait
# START_UNSUPPORTED=1 when its --check refused the config (a feature it does not have yet).
start_server() {
  local srv=$1 sc=$2 kind port conf
  kind=$(scenario_kind "$sc"); port=$(server_port "$srv")
  START_MSG=""; START_UNSUPPORTED=0
  if port_open "$port"; then START_MSG="port $port is already in use (by something this script did not start)"; return 1; fi
  mkdir -p "$TMP/conf/$srv"
  local f
  for f in "$CONFIG_DIR/$srv"/*; do
    render "$f" "$TMP/conf/$srv/$(basename "$f")" "PORT=$port" "PHP_PORT=$(php_port "$srv")"
  done
  local logf="$TMP/logs/$sc-$srv.log"
  case $srv in
    nginx)
      conf="$TMP/conf/nginx/$kind.conf"
      SERVER_CMD[$srv]="taskset -c $SERVER_CPU nginx -p <tmp> -e <tmp>/nginx-error.log -c <conf>/<kind>.conf"
      bg_start "$srv" "$logf" taskset -c "$SERVER_CPU" "$(nginx_bin)" -p "$TMP" -e "$TMP/nginx-error.log" -c "$conf" ;;
    haproxy)
      conf="$TMP/conf/haproxy/$kind.cfg"
      SERVER_CMD[$srv]="taskset -c $SERVER_CPU haproxy -db -f <conf>/_global.cfg -f <conf>/<kind>.cfg"
      bg_start "$srv" "$logf" taskset -c "$SERVER_CPU" "$(haproxy_bin)" -db -f "$TMP/conf/haproxy/_global.cfg" -f "$conf" ;;
    caddy)
      conf="$TMP/conf/caddy/$kind.Caddyfile"
      mkdir -p "$TMP/caddy-home"
      SERVER_CMD[$srv]="GOMAXPROCS=1 taskset -c $SERVER_CPU caddy run --adapter caddyfile --config <conf>/<kind>.Caddyfile"
      # env and taskset exec what follows: the PID is caddy's. GOMAXPROCS=1: one worker.
      bg_start "$srv" "$logf" env HOME="$TMP/caddy-home" XDG_DATA_HOME="$TMP/caddy-home/data" \
        XDG_CONFIG_HOME="$TMP/caddy-home/config" GOMAXPROCS=1 taskset -c "$SERVER_CPU" caddy run --adapter caddyfile --config "$conf" ;;
    strait)
      conf="$TMP/conf/strait/$kind.yaml"
      # STRAIT_TRANSPORT: the same scenario on another transport (auto takes io_uring where it can, ADR 0035).
      [[ -n $STRAIT_TRANSPORT ]] && printf '\ntransport: %s\n' "$STRAIT_TRANSPORT" >>"$conf"
      # --check first: a refused config is a feature Strait does not have yet, not a crash.
      # shellcheck disable=SC2086  # JAVA_OPTS is split into flags on purpose
      if ! timeout 120 java $JAVA_OPTS -jar "$STRAIT_JAR" --check "$conf" >"$TMP/logs/$sc-strait-check.log" 2>&1; then
        START_UNSUPPORTED=1
        START_MSG="config refused by --check: $(awk 'NF && !/WARNING/ && n++ < 3' "$TMP/logs/$sc-strait-check.log" | oneline 300)"
        START_MSG=${START_MSG//"$TMP/conf/strait/"/}
        return 1
      fi
      SERVER_CMD[$srv]="taskset -c $SERVER_CPU java ${JAVA_OPTS:+$JAVA_OPTS }-jar ${STRAIT_JAR#"$ROOT_DIR"/} --config <conf>/<kind>.yaml"
      # shellcheck disable=SC2086
      bg_start "$srv" "$logf" taskset -c "$SERVER_CPU" java $JAVA_OPTS -jar "$STRAIT_JAR" --config "$conf" ;;
  esac
  STARTED_NS[$srv]=$(now_ns)
  if ! wait_port "$srv" "$port" "$STARTUP_TIMEOUT"; then
    START_MSG="$WAIT_MSG: $(tail -n 5 "$logf" "$TMP/nginx-error.log" 2>/dev/null | awk 'NF && !/^==>/' | oneline 300)"
    bg_stop "$srv"; return 1
  fi
  if [[ $srv == strait ]]; then # listeners bound and the config loaded
    local t0=$(now_ns) code=""
    while :; do
      code=$(timeout 3 curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$STRAIT_ADMIN_PORT/readyz" 2>/dev/null) || true
      [[ $code == 200 ]] && break
      if ! bg_alive strait || (( ($(now_ns) - t0) / 1000000 >= STARTUP_TIMEOUT * 1000 )); then
        START_MSG="admin /readyz never answered 200 (last: ${code:-none}): $(tail -n 5 "$logf" | oneline 300)"
        bg_stop strait; return 1
      fi
      sleep 0.02
    done
    STRAIT_STARTUP_MS[$sc]="$(( ($(now_ns) - STARTED_NS[strait]) / 1000000 )) ms (RSS then $(mib "$(status_kb "${PIDS[strait]}" VmRSS)") MiB)"
  fi
}

# ---------------------------------------------------------------- applications behind the servers
APP_PIDS=""   # the application's processes (for their CPU per request)
APP_DESC=""

start_app() { # scenario -> 0, or 1 with START_MSG
  local app logf="$TMP/logs/$1-app.log"
  app=$(scenario_app "$1")
  APP_PIDS=""; START_MSG=""; APP_DESC=""
  [[ $app == none ]] && return 0
  local ports=$APP_PORT s
  if [[ $app == php-fpm ]]; then ports=""; for s in $SERVERS; do ports+="$(php_port "$s") "; done; fi
  for s in $ports; do
    if port_open "$s"; then START_MSG="port $s is already in use"; return 1; fi
  done
  case $app in
    upstream-nginx)
      render "$CONFIG_DIR/upstream/nginx.conf" "$TMP/conf/upstream-nginx.conf"
      APP_DESC="nginx (fixed body, 1 process) on 127.0.0.1:$APP_PORT"
      bg_start app "$logf" taskset -c "$APP_CPU" "$(nginx_bin)" -p "$TMP" -e "$TMP/upstream-nginx-error.log" -c "$TMP/conf/upstream-nginx.conf" ;;
    node)
      APP_DESC="node bench/apps/node-hello.js (1 process) on 127.0.0.1:$APP_PORT"
      bg_start app "$logf" taskset -c "$APP_CPU" node "$BENCH_DIR/apps/node-hello.js" "$APP_PORT" ;;
    python)
      APP_DESC="uvicorn asgi_hello:app (1 worker) on 127.0.0.1:$APP_PORT"
      bg_start app "$logf" taskset -c "$APP_CPU" "$(python_bin)" -m uvicorn --app-dir "$BENCH_DIR/apps" asgi_hello:app \
        --host 127.0.0.1 --port "$APP_PORT" --workers 1 --no-access-log --log-level warning \
        --timeout-keep-alive 75 --backlog 4096 ;;
    php-fpm)
      render "$CONFIG_DIR/upstream/php-fpm.conf" "$TMP/conf/php-fpm.conf"
      for s in $SERVERS; do
        render "$CONFIG_DIR/upstream/php-fpm-pool.conf" "$TMP/conf/php-fpm-pool.conf" "POOL=$s" "POOL_PORT=$(php_port "$s")"
        cat "$TMP/conf/php-fpm-pool.conf" >>"$TMP/conf/php-fpm.conf"
      done
      APP_DESC="php-fpm, one pool per server (pm static, $PHP_CHILDREN children) on 127.0.0.1:$PHP_PORT-$((PHP_PORT + 3))"
      local asroot=()
      [[ $(id -u) == 0 ]] && asroot=(-R)
      bg_start app "$logf" taskset -c "$APP_CPU" "$(phpfpm_bin)" -F -y "$TMP/conf/php-fpm.conf" "${asroot[@]}" ;;
  esac
  for s in $ports; do
    if ! wait_port app "$s" 20; then
      START_MSG="$app: $WAIT_MSG: $(tail -n 5 "$logf" | oneline 300)"; bg_stop app; return 1
    fi
  done
  sleep 0.3  # php-fpm forks its children after listening
  APP_PIDS="${PIDS[app]} $(children_of "${PIDS[app]}" | tr '\n' ' ')"
}

stop_app() { bg_stop app; APP_PIDS=""; }

check_cached() { # server scenario: 0 when repeated requests no longer reach the upstream (cache-hit)
  local srv=$1 sc=$2 u0 u1 i
  u0=$(upstream_requests)
  for i in 1 2 3; do timeout 10 curl -s -o /dev/null --max-time 5 "$(scenario_url "$srv" "$sc")" || true; done
  u1=$(upstream_requests)
  [[ $u0 != "-" && $u1 != "-" ]] || { CHECK_MSG="cache check failed: cannot read the upstream's request counter"; return 1; }
  (( u1 - u0 - 1 == 0 )) && return 0
  CHECK_MSG="cache check failed: $((u1 - u0 - 1)) of 3 repeated requests reached the upstream"
  return 1
}

upstream_requests() { # requests the upstream nginx has answered so far (stub_status), or "-"
  local n
  n=$(timeout 5 curl -s --max-time 2 "http://127.0.0.1:$APP_PORT/upstream-status" 2>/dev/null | awk 'NR == 3 {print $3}') || true
  echo "${n:--}"
}
