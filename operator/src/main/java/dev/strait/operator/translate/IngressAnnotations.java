package dev.strait.operator.translate;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.Limits;
import dev.strait.model.PathNormalizer;
import dev.strait.model.PathSubstitution;
import dev.strait.operator.crd.RouteSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The ingress-nginx annotations of an Ingress that Strait reads, as what Routes already have (ADR 0054,
 * docs/adr/0054-ingress-nginx-annotations.md): the redirects become a {@code redirect} on every rule,
 * {@code rewrite-target} a {@code pathRewrite} (a prefix or full path where that is exact, else nginx's regex
 * rewrite, ADR 0058), {@code use-regex} RegularExpression matches, {@code ssl-redirect} and
 * {@code force-ssl-redirect} the https binding and its {@code -to-https} Route, the source ranges every backend
 * rule's {@code clientAddresses} (ADR 0060). What cannot be expressed exactly is an error naming the
 * annotation, and the paths it applies to answer 503 rather than reach the app with a path or at an address
 * it was not meant to get, or unguarded: so do authentication annotations it cannot honour. {@code auth-type:
 * basic} is the rules' {@code basicAuth} (ADR 0061), {@code auth-url} naming a Service or the request's own host
 * ({@code $host}) their {@code forwardAuth}, {@code auth-tls-secret} and its settings the {@code tls.clientValidation}
 * of the Ingress's TLS hosts (ADR 0075), {@code proxy-ssl-*} the TLS of the upstreams made for its Service backends
 * (checked with the Secret's CAs, with its client certificate), {@code mirror-target} a mirror on every backend rule
 * (a mirror guards nothing: one that cannot be had is reported, and the paths serve unmirrored),
 * {@code proxy-redirect-*} and {@code proxy-cookie-*} every backend rule's {@code responseRewrite} (what cannot be read
 * is reported, and the answers pass as the app sends them); every HTTP backend rule reads request bodies first
 * ({@code requestBuffering}), as ingress-nginx's {@code proxy-request-buffering} does by default, whole (up to
 * {@code proxy-body-size}), {@code client-body-buffer-size} of them in memory and the rest in a file. Tracing is the controller's ({@code enable-opentelemetry} and its settings cannot
 * change it for one Ingress): what they ask that differs is reported, and the paths serve.
 */
final class IngressAnnotations {
    static final String PREFIX = "nginx.ingress.kubernetes.io/";
    /** {@code "false"} turns off the redirect of TLS hosts to https. */
    static final String SSL_REDIRECT = PREFIX + "ssl-redirect";
    /** {@code "true"} redirects to https even a host without TLS (terminated elsewhere, or by another Ingress). */
    static final String FORCE_SSL_REDIRECT = PREFIX + "force-ssl-redirect";
    /** More host names, comma-separated, that serve what the Ingress's hosts serve. */
    static final String SERVER_ALIAS = PREFIX + "server-alias";
    /** {@code "true"}: {@code www.HOST} redirects to {@code HOST}, or {@code HOST} to {@code www.HOST}. */
    static final String FROM_TO_WWW_REDIRECT = PREFIX + "from-to-www-redirect";
    static final String PERMANENT_REDIRECT = PREFIX + "permanent-redirect";
    static final String PERMANENT_REDIRECT_CODE = PREFIX + "permanent-redirect-code";
    /** ingress-nginx spells it so ("temporal", not "temporary"). */
    static final String TEMPORAL_REDIRECT = PREFIX + "temporal-redirect";
    static final String TEMPORAL_REDIRECT_CODE = PREFIX + "temporal-redirect-code";
    static final String REWRITE_TARGET = PREFIX + "rewrite-target";
    static final String USE_REGEX = PREFIX + "use-regex";
    /** Comma-separated CIDRs of the only clients served; {@code whitelist-source-range} is its older name. */
    static final String ALLOWLIST_SOURCE_RANGE = PREFIX + "allowlist-source-range";
    static final String WHITELIST_SOURCE_RANGE = PREFIX + "whitelist-source-range";
    /** Comma-separated CIDRs of clients refused. */
    static final String DENYLIST_SOURCE_RANGE = PREFIX + "denylist-source-range";
    /** Authentication Strait does not do: serving the paths without it would open them (ADR 0060). */
    static final String AUTH_TYPE = PREFIX + "auth-type";
    /** The service asked whether each request may pass: a Service of the Ingress's namespace, as a URL. */
    static final String AUTH_URL = PREFIX + "auth-url";
    /** Where a 401 of that service sends the client, with the way back in {@code rd} unless it names it. */
    static final String AUTH_SIGNIN = PREFIX + "auth-signin";
    /** The query parameter that carries the way back ({@code rd}). */
    static final String AUTH_SIGNIN_REDIRECT_PARAM = PREFIX + "auth-signin-redirect-param";
    /** Comma-separated fields of the service's 2xx answer that the request takes on. */
    static final String AUTH_RESPONSE_HEADERS = PREFIX + "auth-response-headers";
    /** The method of the check; Strait's is GET. */
    static final String AUTH_METHOD = PREFIX + "auth-method";
    /** {@code "true"}: the check's cookies go out with every answer, errors too (nginx's {@code add_header ... always}). */
    static final String AUTH_ALWAYS_SET_COOKIE = PREFIX + "auth-always-set-cookie";
    /** nginx variables naming the credentials a yes is kept for ({@code $http_authorization$cookie__oauth2_proxy}). */
    static final String AUTH_CACHE_KEY = PREFIX + "auth-cache-key";
    /** The statuses kept and for how long, as {@code proxy_cache_valid}: {@code "200 202 401 5m"} (its default). */
    static final String AUTH_CACHE_DURATION = PREFIX + "auth-cache-duration";
    private static final Pattern CACHE_KEY_PART = Pattern.compile("\\$\\{?([A-Za-z0-9_]+)\\}?");
    /**
     * Beside {@code auth-url}, what narrows who passes (nginx directives around the check; a ConfigMap of fields
     * sent with it, such as the group it must find): Strait cannot apply them, and the check without them could
     * let more clients through than asked, so the paths answer 503.
     */
    static final String AUTH_SNIPPET = PREFIX + "auth-snippet";
    static final String AUTH_PROXY_SET_HEADERS = PREFIX + "auth-proxy-set-headers";
    /**
     * The Secret ({@code name}, or {@code namespace/name} in the Ingress's namespace) whose {@code ca.crt} holds the CAs
     * of the client certificates the Ingress's TLS hosts ask for (ingress-nginx's {@code ssl_client_certificate}).
     */
    static final String AUTH_TLS_SECRET = PREFIX + "auth-tls-secret";
    /** {@code on} (the default), {@code optional}, {@code optional_no_ca} or {@code off}: nginx's {@code ssl_verify_client}. */
    static final String AUTH_TLS_VERIFY_CLIENT = PREFIX + "auth-tls-verify-client";
    /** How long a chain may be, 1 (issued by one of the CAs directly) by default. */
    static final String AUTH_TLS_VERIFY_DEPTH = PREFIX + "auth-tls-verify-depth";
    /** {@code "true"}: the certificate goes upstream, URL-escaped PEM in {@code ssl-client-cert}. */
    static final String AUTH_TLS_PASS_CERTIFICATE_TO_UPSTREAM = PREFIX + "auth-tls-pass-certificate-to-upstream";
    /** A regular expression the certificate's subject must hold ({@code CN=client1|CN=client2}), else 403. */
    static final String AUTH_TLS_MATCH_CN = PREFIX + "auth-tls-match-cn";
    /** Where ingress-nginx redirects a client whose certificate fails; Strait answers 400 instead. */
    static final String AUTH_TLS_ERROR_PAGE = PREFIX + "auth-tls-error-page";
    /** With {@code auth-type: basic}: the Secret (name, or namespace/name) whose {@code auth} key holds htpasswd lines. */
    static final String AUTH_SECRET = PREFIX + "auth-secret";
    /** {@code auth-file} (the default: htpasswd lines in the key {@code auth}) or {@code auth-map}. */
    static final String AUTH_SECRET_TYPE = PREFIX + "auth-secret-type";
    static final String AUTH_REALM = PREFIX + "auth-realm";
    /** How the backend is spoken to: HTTP (default), HTTPS, GRPC, GRPCS, AUTO_HTTP or FCGI. */
    static final String BACKEND_PROTOCOL = PREFIX + "backend-protocol";
    /**
     * The Secret ({@code name}, or {@code namespace/name}) whose {@code ca.crt} holds the CAs the backends' certificates
     * are checked against, and whose {@code tls.crt} and {@code tls.key}, when there, are the client certificate the
     * proxy presents to them (nginx's {@code proxy_ssl_trusted_certificate}, {@code proxy_ssl_certificate}).
     */
    static final String PROXY_SSL_SECRET = PREFIX + "proxy-ssl-secret";
    /** {@code on} or {@code off} (the default): whether the backends' certificates are checked. */
    static final String PROXY_SSL_VERIFY = PREFIX + "proxy-ssl-verify";
    /** The name checked in the backends' certificates (and sent as SNI); nginx's {@code proxy_ssl_name}. */
    static final String PROXY_SSL_NAME = PREFIX + "proxy-ssl-name";
    /** {@code on} or {@code off} (the default): whether that name is sent as SNI. */
    static final String PROXY_SSL_SERVER_NAME = PREFIX + "proxy-ssl-server-name";
    /** How long the backend's chain may be (nginx's default 1); Strait checks chains of any length to the CAs. */
    static final String PROXY_SSL_VERIFY_DEPTH = PREFIX + "proxy-ssl-verify-depth";
    /** nginx's TLS versions and ciphers to backends; Strait speaks TLS 1.3 and 1.2 with ciphers of its own. */
    static final String PROXY_SSL_PROTOCOLS = PREFIX + "proxy-ssl-protocols";
    static final String PROXY_SSL_CIPHERS = PREFIX + "proxy-ssl-ciphers";
    /** The Host sent upstream. */
    static final String UPSTREAM_VHOST = PREFIX + "upstream-vhost";
    /** Seconds between two reads from, and two writes to, the backend. */
    static final String PROXY_READ_TIMEOUT = PREFIX + "proxy-read-timeout";
    static final String PROXY_SEND_TIMEOUT = PREFIX + "proxy-send-timeout";
    /** {@code "false"}: the Ingress's requests are not written to the access log. */
    static final String ENABLE_ACCESS_LOG = PREFIX + "enable-access-log";
    /** Comma-separated statuses whose answers are replaced by the {@code default-backend}'s page. */
    static final String CUSTOM_HTTP_ERRORS = PREFIX + "custom-http-errors";
    /** {@code any}: a client the source ranges allow needs no credentials, others are asked for them. */
    static final String SATISFY = PREFIX + "satisfy";
    /** A Service of the Ingress's namespace that serves the paths whose own Service has no ready endpoint. */
    static final String DEFAULT_BACKEND = PREFIX + "default-backend";
    /** {@code "true"}: requests go to the Service's cluster IP rather than its endpoints. */
    static final String SERVICE_UPSTREAM = PREFIX + "service-upstream";
    /** Seconds to establish a connection to an endpoint (5). */
    static final String PROXY_CONNECT_TIMEOUT = PREFIX + "proxy-connect-timeout";
    /** {@code round_robin} (the default) or {@code ewma}: how requests spread over a Service's endpoints. */
    static final String LOAD_BALANCE = PREFIX + "load-balance";
    /** An nginx variable whose value a consistent hash puts on an endpoint ({@code $remote_addr}, ...). */
    static final String UPSTREAM_HASH_BY = PREFIX + "upstream-hash-by";
    /** Where a request for {@code /} is sent (302). */
    static final String APP_ROOT = PREFIX + "app-root";
    /** {@code "true"}: the Ingress splits traffic of another one with its host and paths. */
    static final String CANARY = PREFIX + "canary";
    static final String CANARY_WEIGHT = PREFIX + "canary-weight";
    static final String CANARY_WEIGHT_TOTAL = PREFIX + "canary-weight-total";
    static final String CANARY_BY_HEADER = PREFIX + "canary-by-header";
    static final String CANARY_BY_HEADER_VALUE = PREFIX + "canary-by-header-value";
    static final String CANARY_BY_HEADER_PATTERN = PREFIX + "canary-by-header-pattern";
    static final String CANARY_BY_COOKIE = PREFIX + "canary-by-cookie";
    /** Requests per second, or per minute, per client address; the burst is the rate times the multiplier (5). */
    static final String LIMIT_RPS = PREFIX + "limit-rps";
    static final String LIMIT_RPM = PREFIX + "limit-rpm";
    static final String LIMIT_BURST_MULTIPLIER = PREFIX + "limit-burst-multiplier";
    static final String LIMIT_WHITELIST = PREFIX + "limit-whitelist";
    static final String LIMIT_ALLOWLIST = PREFIX + "limit-allowlist";
    static final String LIMIT_CONNECTIONS = PREFIX + "limit-connections";
    /** {@code "true"}: CORS on every backend rule, with the {@code cors-*} settings or ingress-nginx's defaults. */
    static final String ENABLE_CORS = PREFIX + "enable-cors";
    static final String CORS_ALLOW_ORIGIN = PREFIX + "cors-allow-origin";
    static final String CORS_ALLOW_METHODS = PREFIX + "cors-allow-methods";
    static final String CORS_ALLOW_HEADERS = PREFIX + "cors-allow-headers";
    static final String CORS_EXPOSE_HEADERS = PREFIX + "cors-expose-headers";
    static final String CORS_ALLOW_CREDENTIALS = PREFIX + "cors-allow-credentials";
    static final String CORS_MAX_AGE = PREFIX + "cors-max-age";
    /** {@code cookie}: sticky sessions, a cookie the proxy sets naming where a browser's requests go. */
    static final String AFFINITY = PREFIX + "affinity";
    /** {@code balanced} (the default: a random key on the ring) or {@code persistent} (the cookie names the endpoint). */
    static final String AFFINITY_MODE = PREFIX + "affinity-mode";
    static final String SESSION_COOKIE_NAME = PREFIX + "session-cookie-name";
    static final String SESSION_COOKIE_PATH = PREFIX + "session-cookie-path";
    /** Seconds; {@code session-cookie-expires} is read where it is absent. */
    static final String SESSION_COOKIE_MAX_AGE = PREFIX + "session-cookie-max-age";
    static final String SESSION_COOKIE_EXPIRES = PREFIX + "session-cookie-expires";
    static final String SESSION_COOKIE_SAMESITE = PREFIX + "session-cookie-samesite";
    static final String SESSION_COOKIE_CHANGE_ON_FAILURE = PREFIX + "session-cookie-change-on-failure";
    /** The cookie's {@code Domain}, so that the session sticks across subdomains. */
    static final String SESSION_COOKIE_DOMAIN = PREFIX + "session-cookie-domain";
    /** {@code "true"}: the cookie is {@code Secure} also over plain http (else on https only). */
    static final String SESSION_COOKIE_SECURE = PREFIX + "session-cookie-secure";
    /** When a request goes to the next endpoint: nginx's {@code proxy_next_upstream} ({@code error timeout}). */
    static final String PROXY_NEXT_UPSTREAM = PREFIX + "proxy-next-upstream";
    /** How many endpoints a request may try in all (3). */
    static final String PROXY_NEXT_UPSTREAM_TRIES = PREFIX + "proxy-next-upstream-tries";
    /** The value of the {@code X-Forwarded-Prefix} field sent upstream. */
    static final String X_FORWARDED_PREFIX = PREFIX + "x-forwarded-prefix";
    /** nginx lines for every location of the Ingress: read where they only edit header fields (ADR 0084). */
    static final String CONFIGURATION_SNIPPET = PREFIX + "configuration-snippet";
    /** A ConfigMap ({@code name}, or {@code namespace/name}) whose keys and values are fields of every answer (ADR 0093). */
    static final String CUSTOM_HEADERS = PREFIX + "custom-headers";
    /** nginx's {@code client_max_body_size}: bytes, or a number with {@code k}, {@code m} or {@code g}; 0 is no limit. */
    static final String PROXY_BODY_SIZE = PREFIX + "proxy-body-size";
    /** Where every request of the Ingress is copied to as well: a URL, {@code https://test.example.com$request_uri}. */
    static final String MIRROR_TARGET = PREFIX + "mirror-target";
    /** {@code off}: the copies go without the request's body ({@code on}, the default). */
    static final String MIRROR_REQUEST_BODY = PREFIX + "mirror-request-body";
    /** The Host the copies carry; the target's host name by default. */
    static final String MIRROR_HOST = PREFIX + "mirror-host";
    /** ingress-nginx's older mirror, to a location the Ingress's own nginx configuration had to define: not applied. */
    static final String MIRROR_URI = PREFIX + "mirror-uri";
    /**
     * nginx's {@code proxy_redirect}, its first parameter: the start of the backends' {@code Location} (and
     * {@code Refresh} URL) that {@code proxy-redirect-to} replaces; {@code off} (the default) and {@code default} none.
     */
    static final String PROXY_REDIRECT_FROM = PREFIX + "proxy-redirect-from";
    /** Its second parameter, which may hold {@code $host} and {@code $scheme}. */
    static final String PROXY_REDIRECT_TO = PREFIX + "proxy-redirect-to";
    /** nginx's {@code proxy_cookie_path}: {@code "FROM TO"}, a start of cookies' Path replaced, or {@code off}. */
    static final String PROXY_COOKIE_PATH = PREFIX + "proxy-cookie-path";
    /** nginx's {@code proxy_cookie_domain}: {@code "FROM TO"}, a cookie's Domain FROM replaced, or {@code off}. */
    static final String PROXY_COOKIE_DOMAIN = PREFIX + "proxy-cookie-domain";
    /**
     * nginx's {@code proxy_request_buffering}: {@code on} (ingress-nginx's default) reads a request body before the
     * backend is asked, {@code off} streams it.
     */
    static final String PROXY_REQUEST_BUFFERING = PREFIX + "proxy-request-buffering";
    /**
     * nginx's {@code client_body_buffer_size}: how much of a body is held in memory (past it nginx writes a temporary
     * file); bytes, or a number with {@code k} or {@code m}.
     */
    static final String CLIENT_BODY_BUFFER_SIZE = PREFIX + "client-body-buffer-size";
    /** Kilobytes a second, each answer past {@code limit-rate-after} (nginx's {@code limit_rate}); 0 is no limit. */
    static final String LIMIT_RATE = PREFIX + "limit-rate";
    /** Kilobytes of each answer sent before {@code limit-rate} applies. */
    static final String LIMIT_RATE_AFTER = PREFIX + "limit-rate-after";
    /**
     * {@code "true"}: the Ingress's requests are traced (OpenTelemetry). Strait traces every request of a proxy or none,
     * as the operator's {@code --proxy-tracing-*} say: what an Ingress asks otherwise is reported, and its paths serve.
     */
    static final String ENABLE_OPENTELEMETRY = PREFIX + "enable-opentelemetry";
    /** {@code "false"}: a client's {@code traceparent} is not continued; Strait's trust is the controller's too. */
    static final String OPENTELEMETRY_TRUST_INCOMING_SPAN = PREFIX + "opentelemetry-trust-incoming-span";
    /** The name of the Ingress's spans; Strait names its spans itself. */
    static final String OPENTELEMETRY_OPERATION_NAME = PREFIX + "opentelemetry-operation-name";

    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final Pattern HOST_VALUE = Pattern.compile(
            "(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(:[0-9]{1,5})?");
    /** The annotations whose values change a host's rules (not its listeners), in the order of {@link #key}. */
    private static final List<String> RULE_ANNOTATIONS = List.of(PERMANENT_REDIRECT, PERMANENT_REDIRECT_CODE,
            TEMPORAL_REDIRECT, TEMPORAL_REDIRECT_CODE, REWRITE_TARGET, USE_REGEX, ALLOWLIST_SOURCE_RANGE,
            WHITELIST_SOURCE_RANGE, DENYLIST_SOURCE_RANGE, AUTH_TYPE, AUTH_URL, AUTH_TLS_SECRET, AUTH_TLS_VERIFY_CLIENT,
            AUTH_TLS_VERIFY_DEPTH, AUTH_TLS_PASS_CERTIFICATE_TO_UPSTREAM, AUTH_TLS_MATCH_CN, AUTH_TLS_ERROR_PAGE,
            AUTH_SECRET, AUTH_SECRET_TYPE, AUTH_REALM, BACKEND_PROTOCOL, PROXY_SSL_SECRET, PROXY_SSL_VERIFY,
            PROXY_SSL_NAME, PROXY_SSL_SERVER_NAME, PROXY_SSL_VERIFY_DEPTH, PROXY_SSL_PROTOCOLS, PROXY_SSL_CIPHERS,
            UPSTREAM_VHOST, PROXY_READ_TIMEOUT, PROXY_SEND_TIMEOUT, APP_ROOT, CANARY, CANARY_WEIGHT, CANARY_WEIGHT_TOTAL,
            CANARY_BY_HEADER, CANARY_BY_HEADER_VALUE, CANARY_BY_HEADER_PATTERN, CANARY_BY_COOKIE, LIMIT_RPS, LIMIT_RPM, LIMIT_BURST_MULTIPLIER, LIMIT_WHITELIST, LIMIT_ALLOWLIST,
            ENABLE_CORS, CORS_ALLOW_ORIGIN, CORS_ALLOW_METHODS, CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS,
            CORS_ALLOW_CREDENTIALS, CORS_MAX_AGE, PROXY_BODY_SIZE, AFFINITY, AFFINITY_MODE, SESSION_COOKIE_NAME,
            SESSION_COOKIE_PATH, SESSION_COOKIE_MAX_AGE, SESSION_COOKIE_EXPIRES, SESSION_COOKIE_SAMESITE,
            SESSION_COOKIE_CHANGE_ON_FAILURE, SESSION_COOKIE_DOMAIN, SESSION_COOKIE_SECURE, X_FORWARDED_PREFIX,
            CONFIGURATION_SNIPPET, PROXY_NEXT_UPSTREAM,
            PROXY_NEXT_UPSTREAM_TRIES,
            PROXY_CONNECT_TIMEOUT, LOAD_BALANCE, UPSTREAM_HASH_BY, SERVICE_UPSTREAM, DEFAULT_BACKEND, SATISFY,
            CUSTOM_HTTP_ERRORS, ENABLE_ACCESS_LOG, AUTH_SIGNIN, AUTH_SIGNIN_REDIRECT_PARAM, AUTH_RESPONSE_HEADERS,
            AUTH_ALWAYS_SET_COOKIE, AUTH_CACHE_KEY, AUTH_CACHE_DURATION,
            AUTH_METHOD, AUTH_SNIPPET, AUTH_PROXY_SET_HEADERS, MIRROR_TARGET, MIRROR_REQUEST_BODY, MIRROR_HOST,
            PROXY_REDIRECT_FROM, PROXY_REDIRECT_TO, PROXY_COOKIE_PATH, PROXY_COOKIE_DOMAIN, PROXY_REQUEST_BUFFERING,
            CLIENT_BODY_BUFFER_SIZE, LIMIT_RATE, LIMIT_RATE_AFTER);
    /**
     * {@code "true"}: each host's TLS connections go to the backend of its path {@code /} as they are (a Route's
     * {@code tlsPassthrough}); every other annotation of the Ingress is then not applied, as in ingress-nginx.
     */
    static final String SSL_PASSTHROUGH = PREFIX + "ssl-passthrough";
    /** The annotations this class reads; any other of ingress-nginx's is reported as not read. */
    private static final java.util.Set<String> READ = readAnnotations();

    private static java.util.Set<String> readAnnotations() {
        java.util.Set<String> out = new java.util.HashSet<>(RULE_ANNOTATIONS);
        out.addAll(List.of(SSL_REDIRECT, FORCE_SSL_REDIRECT, LIMIT_CONNECTIONS, SSL_PASSTHROUGH, SERVER_ALIAS,
                FROM_TO_WWW_REDIRECT, MIRROR_URI, ENABLE_OPENTELEMETRY, OPENTELEMETRY_TRUST_INCOMING_SPAN,
                OPENTELEMETRY_OPERATION_NAME));
        out.add(CUSTOM_HEADERS);
        out.addAll(List.of(PROXY_HTTP_VERSION, PROXY_BUFFERING, PROXY_BUFFER_SIZE, PROXY_BUFFERS_NUMBER,
                PROXY_MAX_TEMP_FILE_SIZE, PREFIX + "auth-keepalive", PREFIX + "auth-keepalive-requests",
                PREFIX + "auth-keepalive-timeout", PREFIX + "auth-keepalive-share-vars"));
        return java.util.Set.copyOf(out);
    }

    /**
     * nginx tuning that Strait's way of proxying makes moot: read, so that manifests written for ingress-nginx (most
     * set {@code proxy-http-version: "1.1"} or {@code proxy-buffering: "off"}) get no warning for what Strait does
     * anyway; a value asking for something else is reported.
     */
    static final String PROXY_HTTP_VERSION = PREFIX + "proxy-http-version";
    static final String PROXY_BUFFERING = PREFIX + "proxy-buffering";
    static final String PROXY_BUFFER_SIZE = PREFIX + "proxy-buffer-size";
    static final String PROXY_BUFFERS_NUMBER = PREFIX + "proxy-buffers-number";
    static final String PROXY_MAX_TEMP_FILE_SIZE = PREFIX + "proxy-max-temp-file-size";
    /** The longest answer head Strait takes from an upstream (the proxy's UpstreamResponseDecoder.MAX_HEAD). */
    static final long UPSTREAM_HEAD_MAX = 64 * 1024;

    /** Warns of the moot tuning annotations that ask for what Strait does not do. */
    private static void mootTuning(Map<String, String> a, List<String> warn) {
        String version = trimmed(a.get(PROXY_HTTP_VERSION));
        if (version != null && !version.equals("1.1")) {
            warn.add(field(PROXY_HTTP_VERSION) + ": \"" + version + "\" is not applied: Strait speaks HTTP/1.1 to"
                    + " backends (HTTP/2 with backend-protocol GRPC or GRPCS), keeping connections alive");
        }
        String buffering = trimmed(a.get(PROXY_BUFFERING));
        if (buffering != null && !buffering.equals("off")) {
            warn.add(field(PROXY_BUFFERING) + ": \"" + buffering + "\" is not applied: Strait streams answers to"
                    + " clients as they come, as nginx with proxy_buffering off (a slow client pauses the backend)");
        }
        String headSize = trimmed(a.get(PROXY_BUFFER_SIZE));
        if (headSize != null) {
            java.util.regex.Matcher m = SIZE.matcher(headSize);
            long bytes = !m.matches() || m.group(1).length() > 12 ? -1 : Long.parseLong(m.group(1))
                    << switch (m.group(2).toLowerCase(Locale.ROOT)) {
                        case "k" -> 10;
                        case "m" -> 20;
                        case "g" -> 30;
                        default -> 0;
                    };
            if (bytes < 0 || bytes > UPSTREAM_HEAD_MAX) {
                warn.add(field(PROXY_BUFFER_SIZE) + ": \"" + headSize + "\" is not applied: Strait takes answer heads"
                        + " of up to 64k from backends (larger ones are a 502), whatever this says");
            }
        }
        // proxy-buffers-number and proxy-max-temp-file-size size nginx's buffering of answers, which Strait does not
        // do; auth-keepalive* keep connections to the auth-url's service alive, as Strait's pools always do: any value
        // is moot.
    }

    private static String trimmed(String v) {
        return v == null || v.isBlank() ? null : v.trim();
    }

    /** The end of ingress-nginx's documented path idiom {@code /prefix(/|$)(.*)} with {@code rewrite-target: /$2}. */
    static final String STRIP_IDIOM = "(/|$)(.*)";
    private static final Pattern REGEX_CHARS = Pattern.compile("[()\\[\\]{}*+?|^$\\\\]");
    private static final Pattern HOST = Pattern.compile(
            "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");
    private static final List<Integer> CODES = List.of(301, 302, 303, 307, 308);
    /** nginx's size syntax (ngx_parse_offset): digits and an optional unit. */
    private static final Pattern SIZE = Pattern.compile("([0-9]{1,19})([kKmMgG]?)");

    /**
     * {@code ssl-passthrough: "true"}: the Ingress's hosts are passed through ({@link IngressRoutes}), and every other
     * annotation reads as absent: the proxy hands the connection over before any HTTP is read (ingress-nginx's
     * "invalidates all the other available annotations").
     */
    final boolean sslPassthrough;
    final boolean sslRedirect;
    final boolean forceSslRedirect;
    /** Every rule's action, or null. */
    final RouteSpec.Redirect redirect;
    /** Why the redirect annotation cannot be expressed, or null. */
    final String redirectError;
    final String rewriteTarget;
    /** {@code use-regex: "true"}: the Ingress's paths are regular expressions to ingress-nginx. */
    final boolean useRegex;
    /** The source-range annotations as every backend rule's {@code clientAddresses}, or null for every client. */
    final RouteSpec.ClientAddresses clientAddresses;
    /** {@code auth-type: basic} as every backend rule's {@code basicAuth}, or null. */
    final RouteSpec.BasicAuth basicAuth;
    /** {@code auth-url} and its settings as every backend rule's {@code forwardAuth}, or null. */
    final RouteSpec.ForwardAuth forwardAuth;
    /** {@code mirror-target} and its settings as every backend rule's one mirror, or null. */
    final RouteSpec.Mirror mirror;
    /**
     * The upstream of a {@code mirror-target} outside the cluster, which {@code mirror}'s backend names as
     * {@link IngressRoutes#EXTERNAL}; null for a Service's (or without a mirror).
     */
    final dev.strait.model.Upstream mirrorUpstream;
    /**
     * {@code auth-tls-secret} and its settings as the {@code tls.clientValidation} of every host of the Ingress, or
     * null (none asked, {@code auth-tls-verify-client: off}, a canary, or settings that cannot be honoured: those are
     * in {@code guardErrors}). A host without TLS cannot ask for certificates: its paths answer 503.
     */
    final RouteSpec.ClientValidation clientValidation;
    /** {@code backend-protocol} as every Service backend's {@code protocol}, or null for HTTP/1.1 in the clear. */
    final RouteSpec.ServiceProtocol backendProtocol;
    /**
     * {@code proxy-ssl-*} as the TLS of every Service backend spoken to over TLS ({@code backend-protocol} HTTPS or
     * GRPCS), or null for {@code backend-protocol}'s unchecked TLS. The translator reads the Secret.
     */
    final BackendTls backendTls;
    /** {@code upstream-vhost} as every backend rule's {@code hostRewrite}, or null. */
    final String hostRewrite;
    /**
     * {@code proxy-redirect-from} and {@code -to}, {@code proxy-cookie-path} and {@code proxy-cookie-domain} as every
     * backend rule's {@code responseRewrite}, or null (none, or none that could be read).
     */
    final RouteSpec.ResponseRewrite responseRewrite;
    /**
     * {@code proxy-request-buffering} and {@code client-body-buffer-size} as every backend rule's
     * {@code requestBuffering}: on by default, as in ingress-nginx, reading bodies up to the rules' body limit
     * ({@code proxy-body-size}); null with {@code off}, or for backends spoken to as gRPC (nginx's {@code grpc_pass}
     * never buffers) or FastCGI (which reads bodies first anyway).
     */
    final RouteSpec.RequestBuffering requestBuffering;
    /** {@code limit-rate} and {@code limit-rate-after} as every backend rule's {@code responseRate}, or null. */
    final RouteSpec.ResponseRate responseRate;
    /** The longer of {@code proxy-read-timeout} and {@code proxy-send-timeout} as {@code timeouts.idle}, or null. */
    final String idleTimeout;
    /** {@code app-root}: the path {@code /} is redirected to (302), or null. */
    final String appRoot;
    /** {@code limit-rps} or {@code limit-rpm} as every backend rule's {@code rateLimit}, or null. */
    final RouteSpec.RateLimit rateLimit;
    /** {@code limit-connections} as every backend rule's {@code inFlightLimit}, or null. */
    final RouteSpec.InFlightLimit inFlightLimit;
    /** {@code enable-cors} as every backend rule's {@code cors}, or null. */
    final RouteSpec.Cors cors;
    /** {@code proxy-next-upstream} and {@code -tries} as every backend rule's {@code retries}, or null. */
    final RouteSpec.Retries retries;
    /** {@code x-forwarded-prefix}: every backend rule sets {@code X-Forwarded-Prefix} to it upstream; or null. */
    final String forwardedPrefix;
    /** {@code configuration-snippet}'s header edits on every backend rule, or null (none, or not understood). */
    final ConfigurationSnippet.Edits snippet;
    /** The ConfigMap {@code custom-headers} names, which the pieces read ({@link CustomHeaders}), or null. */
    final CustomHeaders.Ref customHeaders;
    /** {@code proxy-body-size} as every backend rule's {@code maxBodyBytes}, or null for the proxy's limit. */
    final Long maxBodyBytes;
    /**
     * {@code affinity: cookie} as every Service backend's {@code sessionAffinity}, its {@code path} null where
     * {@code session-cookie-path} is absent (the path of each Ingress path is used then); null without affinity.
     */
    final RouteSpec.SessionAffinity affinity;
    /** {@code load-balance} or {@code upstream-hash-by} as every Service backend's {@code loadBalancer}, or null. */
    final dev.strait.operator.crd.UpstreamSpec.LoadBalancer loadBalancer;
    /** {@code upstream-hash-by} as every Service backend's {@code hashOn}, or null. */
    final dev.strait.operator.crd.UpstreamSpec.HashOn hashOn;
    /** {@code proxy-connect-timeout} as every Service backend's {@code connectTimeout}, or null. */
    final String connectTimeout;
    /** {@code enable-access-log: "false"}: every rule of the Ingress's {@code accessLog: false}. */
    private final boolean accessLogOff;
    /** A rule's {@code accessLog} for this Ingress: false with {@code enable-access-log: "false"}, else null (logged). */
    Boolean accessLog() {
        return accessLogOff ? Boolean.FALSE : null;
    }
    /** {@code enable-opentelemetry: "false"}: every rule of the Ingress's {@code tracing: false}. */
    private final boolean tracingOff;

    /** A rule's {@code tracing} for this Ingress: false with {@code enable-opentelemetry: "false"}, else null (traced). */
    Boolean tracing() {
        return tracingOff ? Boolean.FALSE : null;
    }

    /** {@code satisfy: any} as every backend rule's {@code satisfy}, or null (both asked). */
    final RouteSpec.Satisfy satisfy;
    /** {@code custom-http-errors} with a {@code default-backend}: the statuses its pages replace; else empty. */
    final List<Integer> customErrors;
    /** {@code default-backend}: the Service name, or null. */
    final String defaultBackend;
    /** {@code service-upstream: "true"}: every Service backend's {@code useClusterIP}. */
    final boolean serviceUpstream;
    /** {@code server-alias}: host names in lower case, each valid, in the order given; empty without. */
    final List<String> serverAliases;
    /** {@code from-to-www-redirect: "true"}. */
    final boolean fromToWww;
    /** {@code canary: "true"}: the Ingress's paths split the traffic of the same paths of another Ingress. */
    final boolean canary;
    /** The canary's share: {@code canaryWeight} of {@code canaryWeightTotal} requests (0 of 100 when not given). */
    final int canaryWeight;
    final int canaryWeightTotal;
    /** {@code canary-by-header}: a request with this field set to {@code always} (or the value) goes to the canary. */
    final String canaryHeader;
    final String canaryHeaderValue;
    /** {@code canary-by-header-pattern} (without a value): a regular expression the whole field must match, or null. */
    final String canaryHeaderPattern;
    /** {@code canary-by-cookie}: a request with this cookie {@code always} goes to the canary, {@code never} not. */
    final String canaryCookie;
    /**
     * What was read but not taken (a timeout that is no number, say), and ingress-nginx annotations not read at
     * all (snippets among them): reported on the Ingress, while its paths serve as if the annotation were
     * absent, since nothing it guards is opened by leaving it out.
     */
    final List<String> warnings;
    /**
     * Why the Ingress's backend rules cannot be served as asked (an access annotation Strait cannot express, or
     * authentication it does not do): they answer 503 rather than reach the app unguarded. Empty when none.
     * Redirect rules are not guarded: ingress-nginx's {@code return} answers before access checks run.
     */
    final List<String> guardErrors;
    /** The values of the ingress-nginx annotations, empty without any: part of a piece's memo key. */
    final String key;

    IngressAnnotations(Map<String, String> annotations) {
        this(annotations, null);
    }

    /** @param namespace the Ingress's, for an {@code auth-secret} written as {@code namespace/name} */
    IngressAnnotations(Map<String, String> annotations, String namespace) {
        this(annotations, namespace, null);
    }

    /**
     * @param namespace the Ingress's, for an {@code auth-secret} written as {@code namespace/name}
     * @param tracing   the controller's tracing (the operator's {@code --proxy-tracing-*}), null for none: what the
     *                  OpenTelemetry annotations are compared with
     */
    IngressAnnotations(Map<String, String> annotations, String namespace, Config.Tracing tracing) {
        this(annotations, namespace, tracing, ClusterDns.DEFAULT_DOMAIN);
    }

    /**
     * @param clusterDomain the cluster's DNS domain (the operator's {@code --cluster-domain}), in which an
     *                      {@code auth-url}'s or {@code mirror-target}'s {@code NAME.NAMESPACE.svc.DOMAIN} is a Service
     */
    IngressAnnotations(Map<String, String> annotations, String namespace, Config.Tracing tracing,
                       String clusterDomain) {
        Map<String, String> all = annotations == null ? Map.of() : annotations;
        sslPassthrough = "true".equals(all.get(SSL_PASSTHROUGH));
        Map<String, String> a = sslPassthrough ? Map.of() : all;
        sslRedirect = !"false".equals(a.get(SSL_REDIRECT));
        forceSslRedirect = "true".equals(a.get(FORCE_SSL_REDIRECT));
        // ingress-nginx rewrites only with a non-empty target.
        rewriteTarget = a.get(REWRITE_TARGET) == null || a.get(REWRITE_TARGET).isEmpty() ? null : a.get(REWRITE_TARGET);
        useRegex = "true".equals(a.get(USE_REGEX));
        StringBuilder k = new StringBuilder();
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(all).entrySet()) {
            // Every ingress-nginx annotation: those not read are reported, so a change to one is seen too.
            if (e.getKey().startsWith(PREFIX)) {
                k.append('|').append(e.getKey().substring(PREFIX.length())).append('=').append(e.getValue());
            }
        }
        key = k.toString();
        // ingress-nginx reads temporal-redirect first: with both, it wins.
        String name = a.get(TEMPORAL_REDIRECT) != null && !a.get(TEMPORAL_REDIRECT).isEmpty() ? TEMPORAL_REDIRECT
                : a.get(PERMANENT_REDIRECT) != null && !a.get(PERMANENT_REDIRECT).isEmpty() ? PERMANENT_REDIRECT : null;
        RouteSpec.Redirect r = null;
        String error = null;
        if (name != null) {
            boolean temporal = name.equals(TEMPORAL_REDIRECT);
            String codeName = temporal ? TEMPORAL_REDIRECT_CODE : PERMANENT_REDIRECT_CODE;
            String code = a.get(codeName);
            Integer status = temporal ? 302 : 301;
            if (code != null) {
                try {
                    status = Integer.valueOf(code.trim());
                } catch (NumberFormatException e) {
                    status = null;
                }
                if (status == null || !CODES.contains(status)) {
                    error = field(codeName) + ": \"" + code + "\" is not a redirect status Strait sends (301, 302, 303, "
                            + "307 or 308)";
                }
            }
            if (error == null) {
                r = new RouteSpec.Redirect();
                error = url(a.get(name), r);
                if (error != null) {
                    error = field(name) + ": \"" + a.get(name) + "\" " + error;
                    r = null;
                } else {
                    r.statusCode = status;
                }
            }
            if (error != null) {
                error = error + "; every path of the Ingress answers 503";
            }
        }
        redirect = r;
        redirectError = error;

        List<String> guard = new ArrayList<>();
        RouteSpec.ClientAddresses clients = new RouteSpec.ClientAddresses();
        String allowName = a.get(ALLOWLIST_SOURCE_RANGE) != null ? ALLOWLIST_SOURCE_RANGE : WHITELIST_SOURCE_RANGE;
        clients.allow = ranges(allowName, a.get(allowName), guard);
        clients.deny = ranges(DENYLIST_SOURCE_RANGE, a.get(DENYLIST_SOURCE_RANGE), guard);
        clientAddresses = clients.allow == null && clients.deny == null ? null : clients;
        basicAuth = basicAuth(a, namespace, guard);
        int beforeProtocol = guard.size();
        backendProtocol = backendProtocol(a.get(BACKEND_PROTOCOL), guard);
        List<String> warn = new ArrayList<>();
        // An unknown backend-protocol answers 503 already: its proxy-ssl-* would only repeat it.
        backendTls = guard.size() > beforeProtocol ? null : backendTls(a, namespace,
                backendProtocol == RouteSpec.ServiceProtocol.HTTPS || backendProtocol == RouteSpec.ServiceProtocol.H2,
                guard, warn);
        String vhost = a.get(UPSTREAM_VHOST);
        if (vhost != null && !vhost.isBlank() && !HOST_VALUE.matcher(vhost.trim()).matches()) {
            guard.add(field(UPSTREAM_VHOST) + ": \"" + vhost + "\" is not a host (nginx variables are not read); the"
                    + " Ingress's paths answer 503 rather than reach the app under another name");
            vhost = null;
        }
        hostRewrite = vhost == null || vhost.isBlank() ? null : vhost.trim();
        responseRewrite = responseRewrite(a, warn);
        responseRate = responseRate(a, warn);
        long idle = Math.max(seconds(a, PROXY_READ_TIMEOUT, "60s", warn), seconds(a, PROXY_SEND_TIMEOUT, "60s", warn));
        idleTimeout = idle > 0 ? idle + "s" : null;
        String root = a.get(APP_ROOT);
        if (root != null && !root.isBlank() && (!root.startsWith("/") || PathNormalizer.normalize(root) == null
                || root.contains("?") || root.contains("$"))) {
            warn.add(field(APP_ROOT) + ": \"" + root + "\" is not a path starting with /; it is not applied");
            root = null;
        }
        appRoot = root == null || root.isBlank() || root.equals("/") ? null : root;
        rateLimit = rateLimit(a, guard, warn);
        inFlightLimit = inFlightLimit(a, guard);
        cors = "true".equals(a.get(ENABLE_CORS)) ? cors(a, warn) : null;
        maxBodyBytes = bodySize(a.get(PROXY_BODY_SIZE), warn);
        requestBuffering = requestBuffering(a, maxBodyBytes, warn);
        affinity = affinity(a, warn);
        hashOn = affinity == null ? hashBy(a.get(UPSTREAM_HASH_BY), warn) : null;
        loadBalancer = affinity != null ? null : hashOn != null
                ? dev.strait.operator.crd.UpstreamSpec.LoadBalancer.CONSISTENT_HASH : loadBalance(a.get(LOAD_BALANCE), warn);
        if (affinity != null) {
            for (String ignored : List.of(UPSTREAM_HASH_BY, LOAD_BALANCE)) {
                if (a.get(ignored) != null && !a.get(ignored).isBlank()) {
                    warn.add(field(ignored) + ": not applied: affinity: cookie decides where requests go, as in"
                            + " ingress-nginx");
                }
            }
        }
        serverAliases = serverAliases(a.get(SERVER_ALIAS), warn);
        serviceUpstream = "true".equals(a.get(SERVICE_UPSTREAM));
        String sat = a.get(SATISFY) == null ? "" : a.get(SATISFY).trim();
        if (sat.equals("any") && (clientAddresses == null || basicAuth == null)) {
            warn.add(field(SATISFY) + ": \"any\" chooses between a source range and auth-type: basic; the Ingress"
                    + " has not both, so it changes nothing");
        } else if (!sat.isEmpty() && !sat.equals("any") && !sat.equals("all")) {
            warn.add(field(SATISFY) + ": \"" + sat + "\" is not all or any; all applies");
        }
        satisfy = sat.equals("any") && clientAddresses != null && basicAuth != null ? RouteSpec.Satisfy.ANY : null;
        String fallbackService = a.get(DEFAULT_BACKEND) == null ? "" : a.get(DEFAULT_BACKEND).trim();
        if (!fallbackService.isEmpty() && !SERVICE_NAME.matcher(fallbackService).matches()) {
            warn.add(field(DEFAULT_BACKEND) + ": \"" + fallbackService + "\" is not a Service name; it is not applied");
            fallbackService = "";
        }
        defaultBackend = fallbackService.isEmpty() ? null : fallbackService;
        customErrors = customErrors(a.get(CUSTOM_HTTP_ERRORS), defaultBackend != null, warn);
        accessLogOff = "false".equals(a.get(ENABLE_ACCESS_LOG));
        if (serviceUpstream && (affinity != null || hashOn != null || loadBalancer != null)) {
            warn.add(field(SERVICE_UPSTREAM) + ": the proxy sees one endpoint, the Service's cluster IP, so affinity,"
                    + " load-balance and upstream-hash-by choose nothing (kube-proxy or the mesh picks the pod)");
        }
        fromToWww = "true".equals(a.get(FROM_TO_WWW_REDIRECT));
        long connect = seconds(a, PROXY_CONNECT_TIMEOUT, "5s", warn);
        connectTimeout = connect > 0 ? connect + "s" : null;
        retries = retries(a, warn);
        String prefix = a.get(X_FORWARDED_PREFIX);
        if (prefix != null && (prefix.length() > 1024 || prefix.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f))) {
            warn.add(field(X_FORWARDED_PREFIX) + ": holds control characters or is longer than 1024; it is not applied");
            prefix = null;
        }
        forwardedPrefix = prefix == null || prefix.isBlank() ? null : prefix.trim();
        String snippetText = a.get(CONFIGURATION_SNIPPET);
        snippet = snippetText == null || snippetText.isBlank() ? null
                : ConfigurationSnippet.read(snippetText, field(CONFIGURATION_SNIPPET), warn);
        canary = "true".equals(a.get(CANARY));
        customHeaders = CustomHeaders.ref(a.get(CUSTOM_HEADERS), namespace, canary, warn);
        int total = 100;
        int weight = 0;
        String header = null;
        String headerValue = null;
        String headerPattern = null;
        String cookie = null;
        if (canary) {
            total = (int) wholeNumber(a, CANARY_WEIGHT_TOTAL, 100, 1, 1_000_000, warn);
            weight = (int) wholeNumber(a, CANARY_WEIGHT, 0, 0, total, warn);
            header = a.get(CANARY_BY_HEADER) == null || a.get(CANARY_BY_HEADER).isBlank() ? null : a.get(CANARY_BY_HEADER).trim();
            if (header != null && !TOKEN.matcher(header).matches()) {
                warn.add(field(CANARY_BY_HEADER) + ": \"" + header + "\" is not a header name; it is not applied");
                header = null;
            }
            String v = a.get(CANARY_BY_HEADER_VALUE);
            headerValue = header == null || v == null || v.isEmpty() ? null : v;
            String pattern = a.get(CANARY_BY_HEADER_PATTERN);
            if (header != null && headerValue == null && pattern != null && !pattern.isBlank()) {
                // ingress-nginx searches the value (ngx.re.match); Strait's header regex matches the whole value.
                headerPattern = ".*(?:" + pattern + ").*";
                String problem = pattern.length() > 1000 ? "is longer than 1000 characters"
                        : ConfigParser.pathProblem(dev.strait.model.Route.PathType.RegularExpression, headerPattern);
                if (problem != null) {
                    // Not always/never in its place: the header was meant to be read by the pattern only.
                    warn.add(field(CANARY_BY_HEADER_PATTERN) + ": \"" + pattern + "\" " + problem + "; it is not applied");
                    headerPattern = null;
                    header = null;
                }
            }
            cookie = a.get(CANARY_BY_COOKIE) == null || a.get(CANARY_BY_COOKIE).isBlank() ? null : a.get(CANARY_BY_COOKIE).trim();
            if (cookie != null && !TOKEN.matcher(cookie).matches()) {
                warn.add(field(CANARY_BY_COOKIE) + ": \"" + cookie + "\" is not a cookie name; it is not applied");
                cookie = null;
            }
        }
        canaryWeightTotal = total;
        canaryWeight = weight;
        canaryHeader = header;
        canaryHeaderValue = headerValue;
        canaryHeaderPattern = headerPattern;
        canaryCookie = cookie;
        forwardAuth = forwardAuth(a, namespace, clusterDomain, guard, warn);
        for (String narrowing : List.of(AUTH_SNIPPET, AUTH_PROXY_SET_HEADERS)) {
            if (forwardAuth != null && a.get(narrowing) != null && !a.get(narrowing).isBlank()) {
                guard.add(field(narrowing) + ": Strait cannot apply it to the check, which without it could let more"
                        + " clients through than asked; the Ingress's paths answer 503 rather than serve them so");
            }
        }
        clientValidation = canary ? canaryClientValidation(a, warn) : clientValidation(a, namespace, guard, warn);
        Mirrored mirrored = canary ? canaryMirror(a, warn) : mirror(a, namespace, clusterDomain, warn);
        mirror = mirrored == null ? null : mirrored.mirror();
        mirrorUpstream = mirrored == null ? null : mirrored.upstream();
        if (clientValidation != null && !sslRedirect && !forceSslRedirect) {
            warn.add(field(SSL_REDIRECT) + ": \"false\" does not apply to hosts that ask for client certificates ("
                    + field(AUTH_TLS_SECRET) + "): they are served on https only, and plain requests are not redirected");
        }
        guardErrors = List.copyOf(guard);
        tracingOff = openTelemetry(a, tracing, warn);
        mootTuning(a, warn);
        List<String> unread = new ArrayList<>();
        for (String annotation : new java.util.TreeSet<>(a.keySet())) {
            if (!annotation.startsWith(PREFIX) || READ.contains(annotation)) {
                continue;
            }
            unread.add(field(annotation) + (annotation.endsWith("-snippet")
                    ? ": nginx configuration is never read by Strait; it is not applied (rules take requestHeaders,"
                            + " responseHeaders and the other settings of docs/config.md)"
                    : ": is not read by Strait; it has no effect"));
        }
        warn.addAll(unread);
        if (a.get(MIRROR_URI) != null && !a.get(MIRROR_URI).isBlank()) {
            warn.add(field(MIRROR_URI) + ": mirrors to a location of the Ingress's own nginx configuration, which Strait"
                    + " does not read; it is not applied (write " + field(MIRROR_TARGET) + " instead)");
        }
        if (sslPassthrough) {
            for (String annotation : new java.util.TreeSet<>(all.keySet())) {
                if (annotation.startsWith(PREFIX) && !annotation.equals(SSL_PASSTHROUGH)) {
                    warn.add(field(annotation) + ": not applied: with " + field(SSL_PASSTHROUGH) + " the connections go"
                            + " to the backend as they are, and no other annotation applies (as in ingress-nginx)");
                }
            }
        }
        warnings = List.copyOf(warn);
    }

    /** Where tracing is set: the operator's flag and the chart's value, for messages. */
    private static final String TRACING_SETTING = "the operator's --proxy-tracing-endpoint, Helm value proxy.tracing.endpoint";
    private static final String TRUST_SETTING = "the operator's --proxy-tracing-trust-incoming, Helm value"
            + " proxy.tracing.trustIncoming";

    /**
     * ingress-nginx's OpenTelemetry annotations against the controller's {@code tracing}: the controller turns tracing
     * on and says whose traces are continued; an Ingress may turn it off for its own paths ({@code "false"}: its
     * rules' {@code tracing: false}, returned true here), but not on, nor trust clients otherwise. What it asks that
     * cannot be had is a warning; its paths serve either way, since tracing observes and guards nothing. Without
     * tracing a client's {@code traceparent} goes upstream as sent, which is what trusting it asks, so only
     * {@code "false"} is reported then.
     */
    private boolean openTelemetry(Map<String, String> a, Config.Tracing tracing, List<String> warn) {
        Boolean enable = bool(a, ENABLE_OPENTELEMETRY, warn);
        if (Boolean.TRUE.equals(enable) && tracing == null) {
            warn.add(field(ENABLE_OPENTELEMETRY) + ": not applied: tracing is turned on per controller, and it is off"
                    + " (" + TRACING_SETTING + "); the paths serve untraced");
        }
        Boolean trust = bool(a, OPENTELEMETRY_TRUST_INCOMING_SPAN, warn);
        if (trust != null && tracing == null && !trust) {
            warn.add(field(OPENTELEMETRY_TRUST_INCOMING_SPAN) + ": \"false\" is not applied: tracing is off ("
                    + TRACING_SETTING + "), and a client's traceparent goes upstream as sent; the paths serve");
        } else if (trust != null && tracing != null
                && (trust != tracing.trustIncoming() || trust && !tracing.trustedPeers().isEmpty())) {
            String controller = !tracing.trustIncoming() ? "continues no client's trace"
                    : tracing.trustedPeers().isEmpty() ? "continues every client's trace"
                    : "continues the traces of clients from " + String.join(", ",
                            tracing.trustedPeers().stream().map(dev.strait.model.IpBlock::text).toList()) + " only";
            warn.add(field(OPENTELEMETRY_TRUST_INCOMING_SPAN) + ": \"" + a.get(OPENTELEMETRY_TRUST_INCOMING_SPAN).trim()
                    + "\" cannot be applied to one Ingress:"
                    + " the controller " + controller + " (" + TRUST_SETTING + "); the paths serve");
        }
        String name = a.get(OPENTELEMETRY_OPERATION_NAME);
        if (name != null && !name.isBlank()) {
            warn.add(field(OPENTELEMETRY_OPERATION_NAME) + ": is not read by Strait, which names its spans itself"
                    + " (docs/config.md, Tracing); it has no effect");
        }
        return Boolean.FALSE.equals(enable);
    }

    private static final java.util.Set<String> TRUE = java.util.Set.of("1", "t", "T", "TRUE", "true", "True");
    private static final java.util.Set<String> FALSE = java.util.Set.of("0", "f", "F", "FALSE", "false", "False");

    /**
     * A boolean annotation as ingress-nginx reads these (Go's {@code strconv.ParseBool}: {@code true}, {@code True},
     * {@code TRUE}, {@code t}, {@code T}, {@code 1}, and the same for false), null when absent or blank; anything else
     * is a warning and null (the annotation has no effect).
     */
    private static Boolean bool(Map<String, String> a, String annotation, List<String> warn) {
        String v = a.get(annotation) == null ? "" : a.get(annotation).trim();
        if (v.isEmpty()) {
            return null;
        }
        if (TRUE.contains(v) || FALSE.contains(v)) {
            return TRUE.contains(v);
        }
        warn.add(field(annotation) + ": \"" + a.get(annotation) + "\" is neither true nor false; it has no effect");
        return null;
    }

    /** The {@code auth-tls-*} annotations but the Secret, which mean nothing without it. */
    private static final List<String> AUTH_TLS_SETTINGS = List.of(AUTH_TLS_VERIFY_CLIENT, AUTH_TLS_VERIFY_DEPTH,
            AUTH_TLS_PASS_CERTIFICATE_TO_UPSTREAM, AUTH_TLS_MATCH_CN, AUTH_TLS_ERROR_PAGE);

    /**
     * ingress-nginx's client certificate authentication ({@code auth-tls-secret} and its settings) as a
     * {@code clientValidation}, or null without the Secret or with {@code auth-tls-verify-client: off}. What cannot
     * be honoured (a Secret of another namespace, a mode, depth or subject pattern that cannot be read) is an error in
     * {@code guard}: the paths answer 503 rather than serve clients unchecked, or checked less than asked. ingress-nginx
     * falls back to {@code on} and a depth of 1 for values it cannot read; Strait says so instead, as for the other
     * guards. {@code auth-tls-error-page} is a warning: failures answer 400 (403 for the subject), never unchecked.
     */
    private static RouteSpec.ClientValidation clientValidation(Map<String, String> a, String namespace,
                                                               List<String> guard, List<String> warn) {
        String secret = a.get(AUTH_TLS_SECRET) == null ? "" : a.get(AUTH_TLS_SECRET).trim();
        if (secret.isEmpty()) {
            for (String needsSecret : AUTH_TLS_SETTINGS) {
                if (a.get(needsSecret) != null && !a.get(needsSecret).isBlank()) {
                    warn.add(field(needsSecret) + ": applies with " + field(AUTH_TLS_SECRET) + ", which is not set; it"
                            + " has no effect");
                }
            }
            return null;
        }
        String verify = a.get(AUTH_TLS_VERIFY_CLIENT) == null ? "" : a.get(AUTH_TLS_VERIFY_CLIENT).trim();
        if (verify.equals("off")) {
            return null; // no certificate asked for: nothing to check
        }
        String fail = "; the Ingress's paths answer 503 rather than serve clients without the certificate check asked";
        RouteSpec.ClientValidation cv = new RouteSpec.ClientValidation();
        switch (verify) {
            case "", "on" -> cv.mode = null; // require, the default
            case "optional" -> cv.mode = RouteSpec.ClientValidationMode.OPTIONAL;
            case "optional_no_ca" -> cv.mode = RouteSpec.ClientValidationMode.OPTIONAL_NO_CA;
            default -> {
                guard.add(field(AUTH_TLS_VERIFY_CLIENT) + ": \"" + verify + "\" is not on, optional, optional_no_ca or"
                        + " off" + fail);
                return null;
            }
        }
        SecretName named = SecretName.of(secret, namespace);
        cv.caSecretNamespace = named.namespace();
        secret = named.name();
        if (secret.isEmpty()) {
            guard.add(field(AUTH_TLS_SECRET) + ": names no Secret" + fail);
            return null;
        }
        cv.caSecretName = secret;
        String depth = a.get(AUTH_TLS_VERIFY_DEPTH) == null ? "" : a.get(AUTH_TLS_VERIFY_DEPTH).trim();
        if (!depth.isEmpty()) {
            if (depth.length() > 2 || !depth.chars().allMatch(Character::isDigit) || Integer.parseInt(depth) < 1
                    || Integer.parseInt(depth) > 10) {
                guard.add(field(AUTH_TLS_VERIFY_DEPTH) + ": \"" + a.get(AUTH_TLS_VERIFY_DEPTH) + "\" is not a whole"
                        + " number from 1 to 10" + fail);
                return null;
            }
            cv.verifyDepth = Integer.parseInt(depth) == 1 ? null : Integer.parseInt(depth);
        }
        String cn = a.get(AUTH_TLS_MATCH_CN);
        if (cn != null && !cn.isBlank()) {
            // nginx's "$ssl_client_s_dn !~ pattern": a search in the RFC 2253 subject, as the proxy's subjectMatch.
            try {
                Pattern.compile(cn.trim());
            } catch (PatternSyntaxException e) {
                guard.add(field(AUTH_TLS_MATCH_CN) + ": \"" + cn + "\" is not a regular expression Java reads ("
                        + e.getDescription() + " near index " + e.getIndex() + ")" + fail);
                return null;
            }
            cv.subjectMatch = cn.trim();
        }
        String pass = a.get(AUTH_TLS_PASS_CERTIFICATE_TO_UPSTREAM) == null ? ""
                : a.get(AUTH_TLS_PASS_CERTIFICATE_TO_UPSTREAM).trim();
        if (pass.equals("true")) {
            cv.forwardCertificate = Boolean.TRUE;
        } else if (!pass.isEmpty() && !pass.equals("false")) {
            warn.add(field(AUTH_TLS_PASS_CERTIFICATE_TO_UPSTREAM) + ": \"" + pass + "\" is not true or false; the"
                    + " certificate is not sent upstream");
        }
        String page = a.get(AUTH_TLS_ERROR_PAGE) == null ? "" : a.get(AUTH_TLS_ERROR_PAGE).trim();
        if (!page.isEmpty()) {
            if (dev.strait.model.ConfigParser.redirectTarget(page)) {
                cv.errorPage = page; // nginx's error_page 495 496 = URL: a 302 there
            } else {
                warn.add(field(AUTH_TLS_ERROR_PAGE) + ": \"" + page + "\" is not an http(s) URL or a path; a client whose"
                        + " certificate is refused gets 400 (403 when auth-tls-match-cn does not match)");
            }
        }
        return cv;
    }

    /** A rule's mirror, and the upstream of its target when that is outside the cluster (else null). */
    private record Mirrored(RouteSpec.Mirror mirror, dev.strait.model.Upstream upstream) {}

    /** The request's own target in nginx: what Strait's mirrors send. */
    private static final String OWN_TARGET = "$request_uri";

    /**
     * ingress-nginx's {@code mirror-target} (with {@code mirror-request-body} and {@code mirror-host}) as the mirror of
     * every backend rule, or null. The target is {@code http(s)://HOST[:PORT]} and {@code $request_uri}, or nothing:
     * the copy is of the request's own target, all that Strait's mirrors send (ingress-nginx's documented
     * {@code https://HOST/$request_uri} is read so too, where nginx sends the path after a second slash). A HOST that
     * is a Service's cluster name ({@code NAME.NAMESPACE.svc}, {@code NAME.NAMESPACE.svc.DOMAIN} in the cluster domain
     * {@code domain}) is that Service's port (80, or 443 for https, by default; TLS unchecked, as for
     * {@code auth-url}), another namespace's once it accepts the Ingress's (ADR 0078). Any other host becomes an
     * upstream of its own ({@link Translator#hostUpstream}), refused where an ExternalName Service's name would be
     * ({@link ExternalNames}). The copies carry {@code mirror-host} as their Host, else the target's host name, as
     * ingress-nginx sends them. What cannot be read is a warning and the paths are not mirrored: a mirror guards
     * nothing, so leaving it out opens nothing.
     */
    private static Mirrored mirror(Map<String, String> a, String namespace, String domain, List<String> warn) {
        String target = a.get(MIRROR_TARGET);
        if (target == null || target.isBlank()) {
            for (String needsTarget : List.of(MIRROR_REQUEST_BODY, MIRROR_HOST)) {
                if (a.get(needsTarget) != null && !a.get(needsTarget).isBlank()) {
                    warn.add(field(needsTarget) + ": applies with " + field(MIRROR_TARGET) + ", which is not set; it has"
                            + " no effect");
                }
            }
            return null;
        }
        String value = target.trim();
        String notApplied = "; it is not applied (the Ingress's requests are not mirrored)";
        String base = value;
        if (base.endsWith(OWN_TARGET)) {
            base = base.substring(0, base.length() - OWN_TARGET.length());
            if (base.endsWith("/")) {
                base = base.substring(0, base.length() - 1); // ingress-nginx's documented spelling
            }
        }
        if (base.indexOf('$') >= 0) {
            warn.add(field(MIRROR_TARGET) + ": \"" + target + "\" uses nginx variables besides a final " + OWN_TARGET
                    + ", which Strait does not have" + notApplied);
            return null;
        }
        URI u;
        try {
            u = new URI(base);
        } catch (URISyntaxException e) {
            warn.add(field(MIRROR_TARGET) + ": \"" + target + "\" is not a URL (" + e.getReason() + ")" + notApplied);
            return null;
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        boolean tls = scheme.equals("https");
        if (!tls && !scheme.equals("http") || u.getHost() == null || u.getRawUserInfo() != null) {
            warn.add(field(MIRROR_TARGET) + ": \"" + target + "\" is not an http(s) URL of a host" + notApplied);
            return null;
        }
        if (!u.getRawPath().isEmpty() || u.getRawQuery() != null || u.getRawFragment() != null) {
            warn.add(field(MIRROR_TARGET) + ": \"" + target + "\" sends a path or query of its own; Strait's copies go"
                    + " for the request's own path and query, as " + OWN_TARGET + " alone (or nothing) after the host"
                    + " asks" + notApplied);
            return null;
        }
        String host = u.getHost().toLowerCase(Locale.ROOT);
        int port = u.getPort() == -1 ? tls ? 443 : 80 : u.getPort();
        if (port < 1 || port > 65535) {
            warn.add(field(MIRROR_TARGET) + ": \"" + target + "\" has no port from 1 to 65535" + notApplied);
            return null;
        }
        RouteSpec.Mirror m = new RouteSpec.Mirror();
        m.backend = new RouteSpec.Backend();
        dev.strait.model.Upstream upstream = null;
        ClusterDns.ServiceName service = ClusterDns.service(host, domain);
        if (service != null) {
            if (!SERVICE_NAME.matcher(service.name()).matches() || !SERVICE_NAME.matcher(service.namespace()).matches()) {
                warn.add(field(MIRROR_TARGET) + ": \"" + target + "\" names no Service (NAME.NAMESPACE.svc)" + notApplied);
                return null;
            }
            m.backend.service = new dev.strait.operator.crd.ServiceRef(service.name(), port);
            if (!service.namespace().equals(namespace)) {
                m.backend.service.namespace = service.namespace(); // asked if it accepts this namespace's (ADR 0078)
            }
            if (tls) {
                m.backend.protocol = RouteSpec.ServiceProtocol.HTTPS; // unchecked, as for auth-url and nginx
            }
        } else {
            String problem = host.startsWith("[") ? "is an IPv6 address, which Strait does not mirror to; name the host"
                    : ExternalNames.problem(host, domain);
            if (problem == null && Translator.hostUpstreamName(host, port, tls).length() > 253) {
                problem = "is too long to name an upstream";
            }
            if (problem != null) {
                warn.add(field(MIRROR_TARGET) + ": \"" + target + "\": host \"" + host + "\" " + problem + notApplied);
                return null;
            }
            upstream = Translator.hostUpstream(host, port, tls);
            m.backend.upstream = IngressRoutes.EXTERNAL;
        }
        // ingress-nginx sends the target's host name, not the client's, unless mirror-host says otherwise.
        m.hostRewrite = host;
        String vhost = a.get(MIRROR_HOST);
        if (vhost != null && !vhost.isBlank()) {
            if (HOST_VALUE.matcher(vhost.trim()).matches()) {
                m.hostRewrite = vhost.trim();
            } else {
                warn.add(field(MIRROR_HOST) + ": \"" + vhost + "\" is not a host (nginx variables are not read); the"
                        + " copies carry \"" + host + "\", the target's");
            }
        }
        String body = a.get(MIRROR_REQUEST_BODY) == null ? "" : a.get(MIRROR_REQUEST_BODY).trim();
        if (body.equals("off")) {
            m.body = false;
        } else if (!body.isEmpty() && !body.equals("on")) {
            warn.add(field(MIRROR_REQUEST_BODY) + ": \"" + body + "\" is neither on nor off; the copies carry the body,"
                    + " as with on");
        }
        return new Mirrored(m, upstream);
    }

    /**
     * A canary's {@code mirror-*}: not read, as in ingress-nginx; its share of a path's requests is mirrored as the
     * Ingress it splits asks (the canary joins that Ingress's rules, mirrors and all). Null, with a warning for each.
     */
    private static Mirrored canaryMirror(Map<String, String> a, List<String> warn) {
        for (String name : List.of(MIRROR_TARGET, MIRROR_REQUEST_BODY, MIRROR_HOST)) {
            if (a.get(name) != null && !a.get(name).isBlank()) {
                warn.add(field(name) + ": not read on a canary: its requests are mirrored as the Ingress it splits says");
            }
        }
        return null;
    }

    /**
     * What is held in memory without {@code client-body-buffer-size}: the config's default, 1 MiB. nginx's own buffer
     * is smaller (8k or 16k) and the rest goes to its temporary file; Strait holds more in memory before it writes a
     * file, so that most bodies (forms, JSON) never touch the disk.
     */
    static final long BODY_MEMORY_DEFAULT = dev.strait.model.Route.RequestBuffering.DEFAULT_MEMORY;
    /** ...and the most the config holds in memory ({@code requestBuffering.memoryBytes}). */
    static final long BODY_MEMORY_MAX = 64L << 20;
    /**
     * The most the config reads first ({@code requestBuffering.maxBytes}, 1 TiB): what {@code proxy-body-size: 0} (no
     * limit) reads, as nginx reads a whole body however long; longer bodies stream the rest.
     */
    static final long BODY_READ_MAX = 1L << 40;
    /** nginx's size syntax for {@code client_body_buffer_size} (ngx_parse_size): digits and {@code k} or {@code m}. */
    private static final Pattern BUFFER_SIZE = Pattern.compile("([0-9]{1,12})([kKmM]?)");

    /**
     * ingress-nginx's {@code proxy-request-buffering} ({@code on} by default) and {@code client-body-buffer-size} as
     * a {@code requestBuffering}, or null. Apps moved from ingress-nginx rely on its reading bodies first without
     * knowing (a slow upload never holds one of their workers), so it is on unless {@code off} is asked. nginx reads
     * the whole body, up to {@code client-body-buffer-size} in memory and the rest into a temporary file; so does
     * Strait: {@code maxBytes} is the body limit of the Ingress's rules ({@code bodyLimit}: {@code proxy-body-size},
     * else the proxy's {@code limits.maxBodyBytes}; no limit is the config's most, 1 TiB), {@code memoryBytes} the
     * buffer size (1 MiB by default), never more than {@code maxBytes}. Past what the proxy's
     * {@code requestBodyFiles} may hold at once (256 MiB by default) a body streams instead of failing. Backends
     * spoken to as gRPC ({@code backend-protocol} GRPC or GRPCS) get none: nginx's {@code grpc_pass} never buffers,
     * and gRPC calls stream; nor do FastCGI ones, whose bodies are read first anyway (their paths answer 503 here). A
     * value that cannot be read is a warning naming the annotation, and the default applies.
     *
     * @param bodyLimit the rules' {@code maxBodyBytes} ({@link #bodySize}), null for the proxy's own limit
     */
    private static RouteSpec.RequestBuffering requestBuffering(Map<String, String> a, Long bodyLimit,
                                                               List<String> warn) {
        String on = a.get(PROXY_REQUEST_BUFFERING) == null ? "" : a.get(PROXY_REQUEST_BUFFERING).trim();
        boolean off = on.equalsIgnoreCase("off");
        if (!on.isEmpty() && !off && !on.equalsIgnoreCase("on")) {
            warn.add(field(PROXY_REQUEST_BUFFERING) + ": \"" + a.get(PROXY_REQUEST_BUFFERING) + "\" is not on or off;"
                    + " on, the default, applies");
        }
        long memory = BODY_MEMORY_DEFAULT;
        String size = a.get(CLIENT_BODY_BUFFER_SIZE) == null ? "" : a.get(CLIENT_BODY_BUFFER_SIZE).trim();
        if (!size.isEmpty()) {
            java.util.regex.Matcher m = BUFFER_SIZE.matcher(size);
            long bytes = !m.matches() ? 0 : Long.parseLong(m.group(1)) << switch (m.group(2).toLowerCase(Locale.ROOT)) {
                case "k" -> 10;
                case "m" -> 20;
                default -> 0;
            };
            if (bytes < 1 || bytes > BODY_MEMORY_MAX) {
                warn.add(field(CLIENT_BODY_BUFFER_SIZE) + ": \"" + a.get(CLIENT_BODY_BUFFER_SIZE) + "\" is not a size"
                        + " from 1 byte to 64m (bytes, or a number with k or m); the default 1m applies");
            } else {
                memory = bytes;
            }
        }
        String protocol = a.get(BACKEND_PROTOCOL) == null ? "" : a.get(BACKEND_PROTOCOL).trim().toUpperCase(Locale.ROOT);
        if (off || protocol.equals("GRPC") || protocol.equals("GRPCS") || protocol.equals("FCGI")) {
            return null;
        }
        RouteSpec.RequestBuffering out = new RouteSpec.RequestBuffering();
        // A body over the limit gets 413 before it is read: reading up to the limit reads every body whole.
        out.maxBytes = Math.min(bodyLimit != null ? bodyLimit : Limits.DEFAULTS.maxBodyBytes(), BODY_READ_MAX);
        // nginx reads all of a body shorter than its buffer into memory; here the part held in memory is capped by
        // the part read at all, as the config requires.
        out.memoryBytes = Math.min(memory, out.maxBytes);
        return out;
    }

    /**
     * ingress-nginx's {@code limit-rate} and {@code limit-rate-after}, whole kilobytes as it writes them into nginx's
     * {@code limit_rate NK} and {@code limit_rate_after NK}, as a {@code responseRate}; null without a rate or with 0
     * (nginx's "no limit"). A value that is not a whole number of kilobytes is a warning naming the annotation, and
     * is not applied (the answers go unpaced, or with no {@code after}): pacing guards no one's access.
     */
    private static RouteSpec.ResponseRate responseRate(Map<String, String> a, List<String> warn) {
        long rate = kilobytes(a, LIMIT_RATE, warn);
        long after = kilobytes(a, LIMIT_RATE_AFTER, warn);
        if (rate <= 0) {
            if (after > 0) {
                warn.add(field(LIMIT_RATE_AFTER) + ": without limit-rate there is nothing to start after; not applied");
            }
            return null;
        }
        RouteSpec.ResponseRate out = new RouteSpec.ResponseRate();
        out.bytesPerSecond = rate * 1024;
        out.afterBytes = after > 0 ? after * 1024 : null;
        return out;
    }

    /** The kilobytes an annotation gives (0 when absent), or -1 after a warning when it gives no whole number. */
    private static long kilobytes(Map<String, String> a, String name, List<String> warn) {
        String v = a.get(name) == null ? "" : a.get(name).trim();
        if (v.isEmpty()) {
            return 0;
        }
        if (!v.matches("[0-9]{1,12}")) {
            warn.add(field(name) + ": \"" + a.get(name) + "\" is not a whole number of kilobytes; not applied");
            return -1;
        }
        return Long.parseLong(v);
    }

    /** Text that can stand in a {@code Location} field, as the config parser takes it: visible ASCII, no spaces. */
    private static final Pattern URL_PART = Pattern.compile("[!-~]+");
    /** Text that can stand in a cookie attribute's value, as the config parser takes it: visible ASCII but ';'. */
    private static final Pattern COOKIE_VALUE = Pattern.compile("[!-:<-~]+");
    /** An nginx variable, {@code $name} or {@code ${name}}. */
    private static final Pattern VARIABLE = Pattern.compile("\\$(\\{([A-Za-z0-9_]*)}|([A-Za-z0-9_]*))");

    /**
     * ingress-nginx's {@code proxy-redirect-from} and {@code -to}, {@code proxy-cookie-path} and
     * {@code proxy-cookie-domain} (nginx's {@code proxy_redirect}, {@code proxy_cookie_path} and
     * {@code proxy_cookie_domain} in every location) as one {@code responseRewrite}, or null. Each annotation is one
     * replacement in its list, in nginx's plain form: FROM is text, and TO may hold {@code $host} and {@code $scheme}
     * (the proxy's {@code {host}} and {@code {scheme}}). What Strait cannot do as nginx would (a regular expression,
     * another variable, a value the config parser refuses) is a warning and that annotation is not applied: the
     * answers pass as the app sends them, which opens nothing.
     */
    private static RouteSpec.ResponseRewrite responseRewrite(Map<String, String> a, List<String> warn) {
        RouteSpec.ResponseRewrite out = new RouteSpec.ResponseRewrite();
        RouteSpec.Replace redirect = redirect(a, warn);
        out.location = redirect == null ? null : List.of(redirect);
        out.cookiePath = cookie(a, PROXY_COOKIE_PATH, warn);
        out.cookieDomain = cookie(a, PROXY_COOKIE_DOMAIN, warn);
        return out.location == null && out.cookiePath == null && out.cookieDomain == null ? null : out;
    }

    /**
     * {@code proxy-redirect-from} and {@code proxy-redirect-to} as one replacement, or null. As in ingress-nginx's
     * template, a FROM of {@code off} (the default) or {@code default} writes {@code proxy_redirect off} or
     * {@code default}, and a FROM without a TO nothing, leaving nginx's {@code default}: that rewrites only
     * {@code http://upstream_balancer/} (its {@code proxy_pass} URL), which no app sends, so all three change nothing.
     * Strait says so where one of the two is set in vain.
     */
    private static RouteSpec.Replace redirect(Map<String, String> a, List<String> warn) {
        String from = a.get(PROXY_REDIRECT_FROM) == null ? "" : a.get(PROXY_REDIRECT_FROM).trim();
        String to = a.get(PROXY_REDIRECT_TO) == null ? "" : a.get(PROXY_REDIRECT_TO).trim();
        boolean noFrom = from.isEmpty() || from.equals("off") || from.equals("default");
        boolean noTo = to.isEmpty() || to.equals("off");
        if (noFrom || noTo) {
            if (noFrom && !noTo) {
                warn.add(field(PROXY_REDIRECT_TO) + ": applies with " + field(PROXY_REDIRECT_FROM) + ", which is "
                        + (from.isEmpty() ? "not set" : "\"" + from + "\"") + "; it has no effect");
            } else if (noTo && !noFrom) {
                warn.add(field(PROXY_REDIRECT_FROM) + ": \"" + from + "\" applies with " + field(PROXY_REDIRECT_TO)
                        + ", which is " + (to.isEmpty() ? "not set" : "\"off\"")
                        + "; it has no effect (as in ingress-nginx)");
            }
            return null;
        }
        String notApplied = "; it is not applied (Location and Refresh pass as the app sends them)";
        String fromProblem = replaced(from, URL_PART);
        if (fromProblem != null) {
            warn.add(field(PROXY_REDIRECT_FROM) + ": \"" + a.get(PROXY_REDIRECT_FROM) + "\" " + fromProblem
                    + notApplied);
            return null;
        }
        Replacement replacement = replacement(to, URL_PART);
        if (replacement.problem() != null) {
            warn.add(field(PROXY_REDIRECT_TO) + ": \"" + a.get(PROXY_REDIRECT_TO) + "\" " + replacement.problem()
                    + notApplied);
            return null;
        }
        RouteSpec.Replace r = new RouteSpec.Replace();
        r.from = from;
        r.to = replacement.to();
        return r;
    }

    /** {@code proxy-cookie-path} or {@code proxy-cookie-domain}, {@code "FROM TO"}, as a one-entry list, or null. */
    private static List<RouteSpec.CookieReplace> cookie(Map<String, String> a, String name, List<String> warn) {
        String value = a.get(name) == null ? "" : a.get(name).trim();
        if (value.isEmpty() || value.equals("off")) {
            return null;
        }
        String notApplied = "; it is not applied (the cookies' " + (name.equals(PROXY_COOKIE_PATH) ? "Path" : "Domain")
                + " passes as the app sets it)";
        String[] words = value.split("\\s+");
        if (words.length != 2) {
            warn.add(field(name) + ": \"" + a.get(name) + "\" is not FROM TO (two words) or off" + notApplied);
            return null;
        }
        String problem = replaced(words[0], COOKIE_VALUE);
        Replacement replacement = replacement(words[1], COOKIE_VALUE);
        if (problem != null || replacement.problem() != null) {
            warn.add(field(name) + ": \"" + a.get(name) + "\" " + (problem != null ? problem : replacement.problem())
                    + notApplied);
            return null;
        }
        RouteSpec.CookieReplace r = new RouteSpec.CookieReplace();
        r.from = words[0];
        r.to = replacement.to();
        return List.of(r);
    }

    /**
     * Why a FROM cannot be replaced as nginx would replace it, or null: a regular expression ({@code ~}, {@code ~*}),
     * a variable (Strait's FROM is text), nginx's quoting, or text the config parser refuses ({@code allowed}).
     */
    private static String replaced(String from, Pattern allowed) {
        if (from.startsWith("~")) {
            return "is a regular expression (~, ~*), which Strait does not read";
        }
        if (from.indexOf('$') >= 0) {
            return "uses nginx variables in what is replaced, which Strait does not read";
        }
        return text(from, allowed);
    }

    /** A TO as the config takes it, or null; and why it cannot be had, or null. */
    private record Replacement(String to, String problem) {}

    /**
     * A TO with {@code $host} and {@code $scheme} (or {@code ${host}}, {@code ${scheme}}) as the proxy's
     * {@code {host}} and {@code {scheme}}.
     */
    private static Replacement replacement(String to, Pattern allowed) {
        StringBuilder out = new StringBuilder();
        java.util.regex.Matcher m = VARIABLE.matcher(to);
        int at = 0;
        boolean more = true;
        while (more) {
            more = m.find();
            String text = to.substring(at, more ? m.start() : to.length());
            if (text.contains("{host}") || text.contains("{scheme}")) {
                // nginx sends them as they are; the proxy would put the request's host or scheme in their place
                return new Replacement(null, "holds {host} or {scheme} as text, which Strait would read as the"
                        + " request's host or scheme");
            }
            out.append(text);
            if (more) {
                String variable = m.group(2) != null ? m.group(2) : m.group(3);
                switch (variable) {
                    case "host" -> out.append("{host}");
                    case "scheme" -> out.append("{scheme}");
                    default -> {
                        return new Replacement(null, "uses nginx variables besides $host and $scheme, which Strait"
                                + " does not have");
                    }
                }
                at = m.end();
            }
        }
        String problem = text(out.toString(), allowed);
        return new Replacement(problem == null ? out.toString() : null, problem);
    }

    /** Why a word cannot stand in the config ({@code allowed}: visible ASCII, but ';' for a cookie's), or null. */
    private static String text(String word, Pattern allowed) {
        if (word.chars().anyMatch(Character::isWhitespace)) {
            return "holds spaces: it is one word of the nginx directive";
        }
        if (word.indexOf('"') >= 0 || word.indexOf('\'') >= 0 || word.indexOf('\\') >= 0) {
            return "holds quotes or backslashes, nginx's quoting, which Strait does not read";
        }
        if (!allowed.matcher(word).matches()) {
            return "holds characters other than visible ASCII" + (allowed == COOKIE_VALUE ? " but ';'" : "");
        }
        return null;
    }

    /**
     * A canary's {@code auth-tls-*}: not read, as in ingress-nginx; its share of a host's requests is checked as the
     * Ingress it splits asks (the canary joins that Ingress's Routes). Null, with a warning when it has them.
     */
    private static RouteSpec.ClientValidation canaryClientValidation(Map<String, String> a, List<String> warn) {
        String secret = a.get(AUTH_TLS_SECRET);
        if (secret != null && !secret.isBlank()) {
            warn.add(field(AUTH_TLS_SECRET) + ": not read on a canary: its requests are checked as the Ingress it"
                    + " splits asks");
        }
        return null;
    }

    /**
     * ingress-nginx's request limits (nginx's {@code limit_req ... burst=rate*multiplier nodelay}) as a
     * {@code rateLimit}: {@code limit-rps}, else {@code limit-rpm}, with the burst capped at 1,000. A limit that
     * is no number cannot be applied and is an error in {@code guard} (the paths answer 503: a limit asked for
     * is protection, not to be dropped unseen).
     */
    private static RouteSpec.RateLimit rateLimit(Map<String, String> a, List<String> guard, List<String> warn) {
        String name = a.get(LIMIT_RPS) != null && !a.get(LIMIT_RPS).isBlank() ? LIMIT_RPS
                : a.get(LIMIT_RPM) != null && !a.get(LIMIT_RPM).isBlank() ? LIMIT_RPM : null;
        if (name == null) {
            return null;
        }
        String v = a.get(name).trim();
        if (v.length() > 7 || !v.chars().allMatch(Character::isDigit) || Integer.parseInt(v) == 0) {
            guard.add(field(name) + ": \"" + a.get(name) + "\" is not a whole number of requests from 1 to 1000000;"
                    + " the Ingress's paths answer 503 rather than serve without the limit");
            return null;
        }
        List<String> warnOfMultiplier = new ArrayList<>();
        long multiplier = wholeNumber(a, LIMIT_BURST_MULTIPLIER, 5, 1, 1000, warnOfMultiplier);
        warn.addAll(warnOfMultiplier);
        RouteSpec.RateLimit r = new RouteSpec.RateLimit();
        r.requests = Integer.parseInt(v);
        r.per = name.equals(LIMIT_RPS) ? "1s" : "1m";
        r.burst = (int) Math.min(1000, r.requests * multiplier);
        String exemptName = a.get(LIMIT_ALLOWLIST) != null ? LIMIT_ALLOWLIST : LIMIT_WHITELIST;
        List<String> exempt = ranges(exemptName, a.get(exemptName), guard);
        r.exempt = exempt;
        return r;
    }

    /**
     * {@code server-alias}: comma-separated host names (a leading {@code *.} allowed, as nginx's
     * {@code server_name}); what is no host name is reported and left out.
     */
    private static List<String> serverAliases(String value, List<String> warn) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            String h = part.trim().toLowerCase(Locale.ROOT);
            if (h.isEmpty()) {
                continue;
            }
            String bare = h.startsWith("*.") ? h.substring(2) : h;
            if (bare.length() > 253 || !HOST.matcher(bare).matches()) {
                warn.add(field(SERVER_ALIAS) + ": \"" + part.trim() + "\" is not a host name; it is left out");
            } else if (!out.contains(h)) {
                out.add(h);
            }
        }
        return List.copyOf(out);
    }

    /**
     * {@code load-balance}: {@code round_robin} is the default; {@code ewma} (the endpoint with the least
     * latency-weighted load) becomes {@code least-request}, the nearest Strait has, as does the older
     * {@code least_conn}. Null for the default or what is not read (a warning).
     */
    private static dev.strait.operator.crd.UpstreamSpec.LoadBalancer loadBalance(String value, List<String> warn) {
        if (value == null || value.isBlank()) {
            return null;
        }
        switch (value.trim()) {
            case "round_robin" -> {
                return null;
            }
            case "ewma", "least_conn" -> {
                return dev.strait.operator.crd.UpstreamSpec.LoadBalancer.LEAST_REQUEST;
            }
            default -> {
                warn.add(field(LOAD_BALANCE) + ": \"" + value + "\" is not round_robin or ewma; round robin applies");
                return null;
            }
        }
    }

    /**
     * {@code custom-http-errors}: the statuses 400 to 599 in the list (others are reported); none without a
     * {@code default-backend}, since Strait has no cluster-wide default backend to ask for the pages.
     */
    private static List<Integer> customErrors(String value, boolean pagesFrom, List<String> warn) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        if (!pagesFrom) {
            warn.add(field(CUSTOM_HTTP_ERRORS) + ": needs " + field(DEFAULT_BACKEND) + " to serve the pages (Strait has"
                    + " no cluster-wide default backend); it is not applied");
            return List.of();
        }
        java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
        for (String part : value.split(",")) {
            String t = part.trim();
            if (t.isEmpty()) {
                continue;
            }
            if (t.length() == 3 && t.chars().allMatch(Character::isDigit) && Integer.parseInt(t) >= 400
                    && Integer.parseInt(t) <= 599) {
                out.add(Integer.parseInt(t));
            } else {
                warn.add(field(CUSTOM_HTTP_ERRORS) + ": \"" + t + "\" is not a status from 400 to 599; it is left out");
            }
        }
        return List.copyOf(out);
    }

    /** A Service's name (an RFC 1035 label). */
    private static final Pattern SERVICE_NAME = Pattern.compile("[a-z]([-a-z0-9]{0,61}[a-z0-9])?");

    /** One nginx variable, as {@code $name} or {@code ${name}}. */
    private static final Pattern HASH_VARIABLE = Pattern.compile("\\$(?:\\{([A-Za-z0-9_]+)}|([A-Za-z0-9_]+))");

    /**
     * {@code upstream-hash-by} as what a consistent hash hashes: each variable of the value, in order (the first the
     * hash's source, the others its {@code also}), where each is one Strait can read: the client's address, a request
     * field ({@code $http_x_user}: {@code x-user}; {@code $host} the {@code Host}), a cookie, a query parameter
     * ({@code $arg_tenant}), the request target ({@code $request_uri}) or its path ({@code $uri}). Text around the
     * variables is not hashed: it is the same for every request, so it changes which endpoint a key lands on, not which
     * requests share one. A value with a variable Strait cannot read, or none, is a warning, and the Service is
     * balanced as {@code load-balance} says; so is {@code upstream-hash-by-subset}, which is not read.
     */
    private static dev.strait.operator.crd.UpstreamSpec.HashOn hashBy(String value, List<String> warn) {
        if (value == null || value.isBlank()) {
            return null;
        }
        java.util.regex.Matcher m = HASH_VARIABLE.matcher(value);
        List<dev.strait.operator.crd.UpstreamSpec.HashPart> parts = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        while (m.find()) {
            String variable = m.group(1) != null ? m.group(1) : m.group(2);
            dev.strait.operator.crd.UpstreamSpec.HashPart p = hashVariable(variable);
            if (p == null) {
                unknown.add("$" + variable);
            } else {
                parts.add(p);
            }
        }
        if (!unknown.isEmpty() || parts.isEmpty()) {
            warn.add(field(UPSTREAM_HASH_BY) + ": \"" + value + "\" " + (parts.isEmpty() && unknown.isEmpty()
                    ? "names no variable (every request would go to one endpoint)"
                    : "has " + String.join(", ", unknown) + ", not one of the variables Strait can hash on ($remote_addr,"
                    + " $host, $http_NAME, $cookie_NAME, $arg_NAME, $request_uri, $uri)") + "; it is not applied");
            return null;
        }
        if (parts.size() > 9) {
            warn.add(field(UPSTREAM_HASH_BY) + ": \"" + value + "\" has " + parts.size()
                    + " variables; Strait hashes at most 9; it is not applied");
            return null;
        }
        dev.strait.operator.crd.UpstreamSpec.HashOn h = new dev.strait.operator.crd.UpstreamSpec.HashOn();
        h.source = parts.get(0).source;
        h.name = parts.get(0).name;
        if (parts.size() > 1) {
            h.also = List.copyOf(parts.subList(1, parts.size()));
        }
        return h;
    }

    /** One nginx variable as a part of a consistent hash's key, or null when Strait cannot read it. */
    private static dev.strait.operator.crd.UpstreamSpec.HashPart hashVariable(String variable) {
        dev.strait.operator.crd.UpstreamSpec.HashPart p = new dev.strait.operator.crd.UpstreamSpec.HashPart();
        if (variable.startsWith("http_") && variable.length() > 5) {
            p.source = dev.strait.operator.crd.UpstreamSpec.HashSource.HEADER;
            p.name = variable.substring(5).replace('_', '-').toLowerCase(Locale.ROOT);
        } else if (variable.equals("host")) {
            p.source = dev.strait.operator.crd.UpstreamSpec.HashSource.HEADER;
            p.name = "host";
        } else if (variable.startsWith("cookie_") && variable.length() > 7) {
            p.source = dev.strait.operator.crd.UpstreamSpec.HashSource.COOKIE;
            p.name = variable.substring(7);
        } else if (variable.startsWith("arg_") && variable.length() > 4) {
            p.source = dev.strait.operator.crd.UpstreamSpec.HashSource.QUERY;
            p.name = variable.substring(4);
        } else {
            p.source = switch (variable) {
                case "remote_addr", "binary_remote_addr" -> dev.strait.operator.crd.UpstreamSpec.HashSource.CLIENT_ADDRESS;
                case "request_uri" -> dev.strait.operator.crd.UpstreamSpec.HashSource.URI;
                case "uri", "document_uri" -> dev.strait.operator.crd.UpstreamSpec.HashSource.PATH;
                default -> null;
            };
        }
        return p.source == null ? null : p;
    }

    /**
     * ingress-nginx's cookie affinity as a {@code sessionAffinity}: the cookie {@code INGRESSCOOKIE} unless named,
     * its max age from {@code session-cookie-max-age} (else {@code -expires}), in seconds, its {@code Domain} from
     * {@code session-cookie-domain}, {@code Secure} over http too with {@code session-cookie-secure}, and with
     * {@code affinity-mode: persistent} a cookie that names the endpoint (else balanced, a random key on the ring).
     * A setting that cannot be read is a warning and left to its default: a browser that does not stick still gets
     * its answers.
     */
    private static RouteSpec.SessionAffinity affinity(Map<String, String> a, List<String> warn) {
        String kind = a.get(AFFINITY);
        if (kind == null || kind.isBlank()) {
            return null;
        }
        if (!kind.trim().equals("cookie")) {
            warn.add(field(AFFINITY) + ": \"" + kind + "\" is not an affinity Strait has (cookie); it is not applied");
            return null;
        }
        RouteSpec.SessionAffinity s = new RouteSpec.SessionAffinity();
        String name = a.get(SESSION_COOKIE_NAME);
        s.cookieName = "INGRESSCOOKIE";
        if (name != null && !name.isBlank()) {
            if (TOKEN.matcher(name.trim()).matches() && name.trim().length() <= 128) {
                s.cookieName = name.trim();
            } else {
                warn.add(field(SESSION_COOKIE_NAME) + ": \"" + name + "\" is not a cookie name; INGRESSCOOKIE is used");
            }
        }
        String path = a.get(SESSION_COOKIE_PATH);
        if (path != null && !path.isBlank()) {
            if (COOKIE_PATH.matcher(path.trim()).matches()) {
                s.path = path.trim();
            } else {
                warn.add(field(SESSION_COOKIE_PATH) + ": \"" + path + "\" is not a cookie path; each path's own is used");
            }
        }
        String ageName = a.get(SESSION_COOKIE_MAX_AGE) != null && !a.get(SESSION_COOKIE_MAX_AGE).isBlank()
                ? SESSION_COOKIE_MAX_AGE : SESSION_COOKIE_EXPIRES;
        long age = wholeNumber(a, ageName, 0, 0, 999_999_999, warn);
        s.maxAge = age > 0 ? age + "s" : null;
        String mode = a.get(AFFINITY_MODE);
        if (mode != null && !mode.isBlank() && !mode.trim().equals(dev.strait.model.Upstream.SetCookie.BALANCED)) {
            if (mode.trim().equals(dev.strait.model.Upstream.SetCookie.PERSISTENT)) {
                s.mode = dev.strait.model.Upstream.SetCookie.PERSISTENT;
            } else {
                warn.add(field(AFFINITY_MODE) + ": \"" + mode + "\" is neither balanced nor persistent; balanced is used");
            }
        }
        String sameSite = a.get(SESSION_COOKIE_SAMESITE);
        if (sameSite != null && !sameSite.isBlank()) {
            String want = sameSite.trim();
            // ingress-nginx writes what it is given; browsers know these three, in any case.
            String known = dev.strait.model.Upstream.SetCookie.SAME_SITE.stream().filter(v -> v.equalsIgnoreCase(want))
                    .findFirst().orElse(null);
            if (known != null) {
                s.sameSite = known;
            } else {
                warn.add(field(SESSION_COOKIE_SAMESITE) + ": \"" + sameSite + "\" is not Strict, Lax or None; the cookie"
                        + " has no SameSite (browsers treat it as Lax)");
            }
        }
        if ("true".equals(a.get(SESSION_COOKIE_CHANGE_ON_FAILURE))) {
            s.changeOnFailure = Boolean.TRUE;
        }
        String domain = a.get(SESSION_COOKIE_DOMAIN);
        if (domain != null && !domain.isBlank()) {
            String problem = dev.strait.model.Upstream.SetCookie.domainProblem(domain.trim());
            if (problem == null) {
                s.domain = domain.trim();
            } else {
                warn.add(field(SESSION_COOKIE_DOMAIN) + ": " + problem + "; the cookie has no Domain");
            }
        }
        // As ingress-nginx: "false" is its default, Secure on https only.
        if (Boolean.TRUE.equals(bool(a, SESSION_COOKIE_SECURE, warn))) {
            s.secure = Boolean.TRUE;
        }
        return s;
    }

    /**
     * nginx's {@code proxy_next_upstream} conditions and tries as a {@code retries}: {@code error} is a failed
     * connect, a refused stream or a reset before the answer, {@code timeout} a try's timeout, {@code http_502}
     * and the like those statuses, {@code off} no retry; tries count the first one, as in nginx (0, no limit,
     * becomes Strait's most, 10 retries). Strait retries only idempotent requests and never once a body has
     * streamed, so {@code non_idempotent} is reported; so is {@code invalid_header}, a 502 here.
     */
    private static RouteSpec.Retries retries(Map<String, String> a, List<String> warn) {
        String on = a.get(PROXY_NEXT_UPSTREAM);
        String tries = a.get(PROXY_NEXT_UPSTREAM_TRIES);
        if ((on == null || on.isBlank()) && (tries == null || tries.isBlank())) {
            return null;
        }
        RouteSpec.Retries r = new RouteSpec.Retries();
        java.util.LinkedHashSet<String> retryOn = new java.util.LinkedHashSet<>();
        boolean off = false;
        for (String token : (on == null || on.isBlank() ? "error timeout" : on).trim().split("[\\s,]+")) {
            switch (token) {
                case "error" -> retryOn.addAll(List.of("connect-failure", "refused-stream", "reset"));
                case "timeout" -> retryOn.add("timeout");
                case "off" -> off = true;
                case "http_500", "http_502", "http_503", "http_504", "http_403", "http_404", "http_429" ->
                        retryOn.add(token.substring(5));
                default -> warn.add(field(PROXY_NEXT_UPSTREAM) + ": \"" + token + "\" is not applied (Strait retries"
                        + " idempotent requests only, and a bad header is a 502)");
            }
        }
        long n = wholeNumber(a, PROXY_NEXT_UPSTREAM_TRIES, 3, 0, 1000, warn);
        r.attempts = off ? 0 : n == 0 ? 10 : (int) Math.min(10, n - 1);
        r.retryOn = off ? List.of() : List.copyOf(retryOn);
        return r;
    }

    /** A cookie's Path: "/" and printable ASCII but ";" (RFC 6265 4.1.1), no spaces. */
    static final Pattern COOKIE_PATH = Pattern.compile("/[!-:<-~]{0,1023}");

    /**
     * {@code proxy-body-size} in bytes: {@code 8m} is 8 MiB, as nginx reads it; {@code 0} turns the check off, as
     * in nginx, so it is the largest limit there is. A value that is no size is a warning and the proxy's own
     * {@code limits.maxBodyBytes} applies: ingress-nginx would not load it either.
     */
    static Long bodySize(String v, List<String> warn) {
        if (v == null || v.isBlank()) {
            return null;
        }
        java.util.regex.Matcher m = SIZE.matcher(v.trim());
        if (!m.matches()) {
            warn.add(field(PROXY_BODY_SIZE) + ": \"" + v + "\" is not a size (bytes, or a number with k, m or g);"
                    + " the proxy's limits.maxBodyBytes applies");
            return null;
        }
        int shift = switch (Character.toLowerCase(m.group(2).isEmpty() ? ' ' : m.group(2).charAt(0))) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 0;
        };
        java.math.BigInteger bytes = new java.math.BigInteger(m.group(1)).shiftLeft(shift);
        return bytes.signum() == 0 || bytes.bitLength() > 63 ? Long.MAX_VALUE : bytes.longValue();
    }

    /**
     * {@code limit-connections} (nginx's {@code limit_conn}: requests of one client address under way at once)
     * as an {@code inFlightLimit}, with the same exempt addresses as the request limits. A limit that is no
     * number is an error in {@code guard}, as for the request limits.
     */
    private static RouteSpec.InFlightLimit inFlightLimit(Map<String, String> a, List<String> guard) {
        String v = a.get(LIMIT_CONNECTIONS);
        if (v == null || v.isBlank()) {
            return null;
        }
        String t = v.trim();
        if (t.length() > 6 || !t.chars().allMatch(Character::isDigit) || Integer.parseInt(t) == 0 || Integer.parseInt(t) > 100_000) {
            guard.add(field(LIMIT_CONNECTIONS) + ": \"" + v + "\" is not a whole number from 1 to 100000; the Ingress's"
                    + " paths answer 503 rather than serve without the limit");
            return null;
        }
        RouteSpec.InFlightLimit l = new RouteSpec.InFlightLimit();
        l.requests = Integer.parseInt(t);
        String exemptName = a.get(LIMIT_ALLOWLIST) != null ? LIMIT_ALLOWLIST : LIMIT_WHITELIST;
        l.exempt = ranges(exemptName, a.get(exemptName), new ArrayList<>()); // its errors are the rate limit's
        return l;
    }

    /**
     * ingress-nginx's CORS settings as a {@code cors}: comma-separated lists, {@code cors-max-age} in seconds.
     * What cannot be read is a warning and left to the default; CORS that allows less than asked only makes
     * browsers refuse, so nothing is opened by it.
     */
    private static RouteSpec.Cors cors(Map<String, String> a, List<String> warn) {
        RouteSpec.Cors c = new RouteSpec.Cors();
        String origins = a.get(CORS_ALLOW_ORIGIN);
        if (origins != null && !origins.isBlank() && !origins.trim().equals("*")) {
            List<String> ok = new ArrayList<>();
            for (String o : origins.split(",")) {
                String t = o.trim().toLowerCase(Locale.ROOT);
                if (t.isEmpty()) {
                    continue;
                }
                if (dev.strait.model.Route.Cors.isOrigin(t)) {
                    ok.add(t);
                } else {
                    warn.add(field(CORS_ALLOW_ORIGIN) + ": \"" + o.trim() + "\" is not an origin; it is left out");
                }
            }
            if (ok.isEmpty()) {
                // "*" would allow more than was asked: no CORS at all, which browsers answer by refusing.
                warn.add(field(CORS_ALLOW_ORIGIN) + ": no origin left; CORS is not applied");
                return null;
            }
            c.allowOrigins = ok;
        }
        c.allowMethods = list(a.get(CORS_ALLOW_METHODS), CORS_ALLOW_METHODS, warn);
        c.allowHeaders = list(a.get(CORS_ALLOW_HEADERS), CORS_ALLOW_HEADERS, warn);
        c.exposeHeaders = list(a.get(CORS_EXPOSE_HEADERS), CORS_EXPOSE_HEADERS, warn);
        if (a.get(CORS_ALLOW_CREDENTIALS) != null) {
            c.allowCredentials = !"false".equals(a.get(CORS_ALLOW_CREDENTIALS).trim());
        }
        if (a.get(CORS_MAX_AGE) != null && !a.get(CORS_MAX_AGE).isBlank()) {
            c.maxAge = wholeNumber(a, CORS_MAX_AGE, 1_728_000, 0, 999_999_999, warn) + "s";
        }
        return c;
    }

    /** A comma-separated list of HTTP tokens, or null (the default) when absent; entries that are none are warned of. */
    private static List<String> list(String value, String name, List<String> warn) {
        if (value == null || value.isBlank()) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            String t = part.trim();
            if (t.isEmpty()) {
                continue;
            }
            if (TOKEN.matcher(t).matches()) {
                out.add(t);
            } else {
                warn.add(field(name) + ": \"" + t + "\" is not a method or field name; it is left out");
            }
        }
        return out;
    }

    /** A whole number from {@code min} to {@code max}, or {@code dflt} when absent; anything else is a warning. */
    private static long wholeNumber(Map<String, String> a, String name, long dflt, long min, long max, List<String> warn) {
        String v = a.get(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        String t = v.trim();
        if (t.length() > 9 || !t.chars().allMatch(Character::isDigit) || Long.parseLong(t) < min || Long.parseLong(t) > max) {
            warn.add(field(name) + ": \"" + v + "\" is not a whole number from " + min + " to " + max + "; " + dflt
                    + " applies");
            return dflt;
        }
        return Long.parseLong(t);
    }

    /** An annotation's whole seconds (ingress-nginx's timeouts), or 0 when absent; what is no number is a warning. */
    private static long seconds(Map<String, String> a, String name, String fallback, List<String> warn) {
        String v = a.get(name);
        if (v == null || v.isBlank()) {
            return 0;
        }
        String t = v.trim();
        if (t.length() > 9 || !t.chars().allMatch(Character::isDigit) || Long.parseLong(t) == 0) {
            warn.add(field(name) + ": \"" + v + "\" is not a number of seconds above 0; the default " + fallback + " applies");
            return 0;
        }
        return Long.parseLong(t);
    }

    /**
     * ingress-nginx's {@code backend-protocol} as a Service backend's protocol: HTTPS and GRPCS are TLS whose
     * certificate is not checked, as ingress-nginx's (its {@code proxy-ssl-verify} is off by default; see
     * {@link #backendTls} for what it is on). What Strait cannot speak this way is an error in {@code guard}: the
     * paths answer 503, since the app would only get bytes it cannot read.
     */
    private static RouteSpec.ServiceProtocol backendProtocol(String value, List<String> guard) {
        if (value == null || value.isBlank()) {
            return null;
        }
        switch (value.trim().toUpperCase(Locale.ROOT)) {
            case "HTTP", "AUTO_HTTP" -> {
                return null;
            }
            case "HTTPS" -> {
                return RouteSpec.ServiceProtocol.HTTPS;
            }
            case "GRPC" -> {
                return RouteSpec.ServiceProtocol.H2C;
            }
            case "GRPCS" -> {
                return RouteSpec.ServiceProtocol.H2;
            }
            case "FCGI" -> guard.add(field(BACKEND_PROTOCOL) + ": \"" + value + "\": FastCGI backends are Upstreams with"
                    + " protocol fastcgi and a Route's fastcgi settings; the Ingress's paths answer 503");
            default -> guard.add(field(BACKEND_PROTOCOL) + ": \"" + value + "\" is not HTTP, HTTPS, GRPC, GRPCS or"
                    + " AUTO_HTTP; the Ingress's paths answer 503");
        }
        return null;
    }

    /**
     * What {@code proxy-ssl-*} ask of the TLS to the Ingress's Service backends: the Secret ({@code secretNamespace}
     * null for the Ingress's own), the name checked in their certificates and sent as SNI, and whether they are
     * checked. {@code secretName} is null only without {@code verify} (SNI alone).
     */
    /** @param verifyDepth how far the backend's certificate may be from a CA of the Secret (checked TLS only) */
    record BackendTls(String secretNamespace, String secretName, String serverName, boolean verify, int verifyDepth) {}

    /** The {@code proxy-ssl-*} annotations Strait takes (the others are reported as not applied). */
    private static final List<String> PROXY_SSL = List.of(PROXY_SSL_SECRET, PROXY_SSL_VERIFY, PROXY_SSL_NAME,
            PROXY_SSL_SERVER_NAME);

    /**
     * ingress-nginx's TLS to the backends ({@code proxy-ssl-*}) as a {@link BackendTls}, or null where
     * {@code backend-protocol}'s unchecked TLS is what they come to (none set, or only settings that change nothing).
     * {@code proxy-ssl-verify: on} is a check asked for: where it cannot be made (the backends are spoken to in the
     * clear, no Secret, a name that is no host name) it is an error in {@code guard}, and the paths answer 503 rather
     * than reach backends nobody checked. As in nginx, the name is sent as SNI with {@code proxy-ssl-server-name: on};
     * a checked name is always sent (the backend then shows the certificate for it). The chain's depth, TLS versions
     * and ciphers are not Strait's to choose: warnings.
     *
     * @param tls {@code backend-protocol} is HTTPS or GRPCS
     */
    private static BackendTls backendTls(Map<String, String> a, String namespace, boolean tls, List<String> guard,
                                         List<String> warn) {
        if (!tls) {
            if (trimmed(a, PROXY_SSL_VERIFY).equals("on")) {
                guard.add(field(PROXY_SSL_VERIFY) + ": \"on\" needs " + field(BACKEND_PROTOCOL) + " HTTPS or GRPCS (the"
                        + " backends are spoken to in the clear); the Ingress's paths answer 503");
                return null;
            }
            for (String name : List.of(PROXY_SSL_SECRET, PROXY_SSL_VERIFY, PROXY_SSL_NAME, PROXY_SSL_SERVER_NAME,
                    PROXY_SSL_VERIFY_DEPTH, PROXY_SSL_PROTOCOLS, PROXY_SSL_CIPHERS)) {
                if (!trimmed(a, name).isEmpty()) {
                    warn.add(field(name) + ": applies with " + field(BACKEND_PROTOCOL) + " HTTPS or GRPCS; the backends"
                            + " are spoken to in the clear, so it has no effect");
                }
            }
            return null;
        }
        if (!trimmed(a, PROXY_SSL_PROTOCOLS).isEmpty()) {
            warn.add(field(PROXY_SSL_PROTOCOLS) + ": is not applied: Strait speaks TLS 1.3 or 1.2 to backends");
        }
        if (!trimmed(a, PROXY_SSL_CIPHERS).isEmpty()) {
            warn.add(field(PROXY_SSL_CIPHERS) + ": is not applied: Strait offers backends the ciphers of its own TLS 1.3"
                    + " and 1.2");
        }
        if (PROXY_SSL.stream().allMatch(name -> trimmed(a, name).isEmpty())) {
            return null;
        }
        String fail = "; the Ingress's paths answer 503 rather than reach backends whose certificates nobody checked";
        String verify = trimmed(a, PROXY_SSL_VERIFY);
        if (!verify.isEmpty() && !verify.equals("on") && !verify.equals("off")) {
            guard.add(field(PROXY_SSL_VERIFY) + ": \"" + a.get(PROXY_SSL_VERIFY) + "\" is not on or off" + fail);
            return null;
        }
        boolean on = verify.equals("on");
        // nginx's proxy_ssl_verify_depth, 1 unless given: the backend's certificate issued by a CA of ca.crt directly.
        String depthText = trimmed(a, PROXY_SSL_VERIFY_DEPTH);
        int depth = 1;
        if (!depthText.isEmpty()) {
            depth = depthText.matches("[0-9]{1,2}") ? Integer.parseInt(depthText) : -1;
            if (depth < 1 || depth > 10) {
                if (on) {
                    guard.add(field(PROXY_SSL_VERIFY_DEPTH) + ": \"" + a.get(PROXY_SSL_VERIFY_DEPTH)
                            + "\" is not a whole number from 1 to 10" + fail);
                    return null;
                }
                depth = 1;
            }
            if (!on) {
                warn.add(field(PROXY_SSL_VERIFY_DEPTH) + ": applies with " + field(PROXY_SSL_VERIFY)
                        + ": \"on\"; nothing is checked, so it has no effect");
            }
        }
        String name = trimmed(a, PROXY_SSL_NAME).toLowerCase(Locale.ROOT);
        if (!name.isEmpty() && (name.length() > 253 || !HOST.matcher(name).matches())) {
            String problem = field(PROXY_SSL_NAME) + ": \"" + a.get(PROXY_SSL_NAME) + "\" is not a host name (nginx"
                    + " variables are not read)";
            if (on) {
                guard.add(problem + fail);
                return null;
            }
            warn.add(problem + "; it is not sent");
            name = "";
        }
        String sni = trimmed(a, PROXY_SSL_SERVER_NAME);
        switch (sni) {
            case "", "off" -> {
                if (on && sni.equals("off") && !name.isEmpty()) {
                    warn.add(field(PROXY_SSL_SERVER_NAME) + ": \"off\" is not applied: the name " + field(PROXY_SSL_NAME)
                            + " checks in the backends' certificates is sent as SNI too");
                }
            }
            case "on" -> {
                if (name.isEmpty()) {
                    warn.add(field(PROXY_SSL_SERVER_NAME) + ": applies with " + field(PROXY_SSL_NAME) + ", which is not"
                            + " set; it has no effect");
                }
            }
            default -> warn.add(field(PROXY_SSL_SERVER_NAME) + ": \"" + a.get(PROXY_SSL_SERVER_NAME) + "\" is not on or"
                    + " off; off applies");
        }
        // Unchecked, the name is only SNI, which nginx sends only when asked.
        String serverName = name.isEmpty() || !on && !sni.equals("on") ? null : name;
        String secret = trimmed(a, PROXY_SSL_SECRET);
        SecretName named = secret.isEmpty() ? null : SecretName.of(secret, namespace);
        if (named != null && named.name().isEmpty()) {
            guard.add(field(PROXY_SSL_SECRET) + ": names no Secret; the Ingress's paths answer 503");
            return null;
        }
        if (on && named == null) {
            guard.add(field(PROXY_SSL_VERIFY) + ": \"on\" needs " + field(PROXY_SSL_SECRET) + " (its ca.crt: the CAs the"
                    + " backends' certificates are checked against)" + fail);
            return null;
        }
        if (named == null && serverName == null) {
            return null;
        }
        return new BackendTls(named == null ? null : named.namespace(), named == null ? null : named.name(), serverName,
                on, on ? depth : 0);
    }

    /** An annotation's value trimmed, empty when absent. */
    private static String trimmed(Map<String, String> a, String name) {
        return a.get(name) == null ? "" : a.get(name).trim();
    }

    /**
     * {@code auth-type: basic} with its Secret and realm, or null (also for no {@code auth-type}). What cannot
     * be honoured (another type, no Secret, another namespace's, another Secret format) is an error in
     * {@code guard}: the paths answer 503.
     */
    private static RouteSpec.BasicAuth basicAuth(Map<String, String> a, String namespace, List<String> guard) {
        String type = a.get(AUTH_TYPE);
        if (type == null || type.isBlank()) {
            return null;
        }
        String fail = "; the Ingress's paths answer 503 rather than serve them unauthenticated";
        if (!type.trim().equals("basic")) {
            guard.add(field(AUTH_TYPE) + ": \"" + type + "\": Strait authenticates with basic only" + fail);
            return null;
        }
        String secret = a.get(AUTH_SECRET) == null ? "" : a.get(AUTH_SECRET).trim();
        SecretName named = SecretName.of(secret, namespace);
        secret = named.name();
        if (secret.isEmpty()) {
            guard.add(field(AUTH_TYPE) + ": \"basic\" needs " + field(AUTH_SECRET) + fail);
            return null;
        }
        String secretType = a.get(AUTH_SECRET_TYPE) == null ? "" : a.get(AUTH_SECRET_TYPE).trim();
        if (!secretType.isEmpty() && !secretType.equals("auth-file") && !secretType.equals("auth-map")) {
            guard.add(field(AUTH_SECRET_TYPE) + ": \"" + secretType + "\": only auth-file (htpasswd lines in the key"
                    + " auth) and auth-map (a key per user) are read" + fail);
            return null;
        }
        RouteSpec.BasicAuth b = new RouteSpec.BasicAuth();
        b.secretName = secret;
        b.secretNamespace = named.namespace();
        b.secretType = secretType.equals("auth-map") ? RouteSpec.SecretType.AUTH_MAP : null;
        String realm = a.get(AUTH_REALM);
        if (realm != null && !realm.isEmpty()) {
            if (!realm.chars().allMatch(c -> c >= 0x20 && c < 0x7f && c != '"' && c != '\\')) {
                guard.add(field(AUTH_REALM) + ": \"" + realm + "\" is not printable ASCII without '\"' or '\\'" + fail);
                return null;
            }
            b.realm = realm;
        }
        return b;
    }

    /**
     * A Secret an annotation names, {@code name} or {@code namespace/name} as ingress-nginx reads it: {@code namespace}
     * only when it is another than the Ingress's (that Secret must then accept references from it, ADR 0078).
     */
    private record SecretName(String namespace, String name) {
        static SecretName of(String value, String own) {
            int slash = value.indexOf('/');
            if (slash < 0) {
                return new SecretName(null, value);
            }
            String ns = value.substring(0, slash);
            return new SecretName(ns.isEmpty() || ns.equals(own) ? null : ns, value.substring(slash + 1));
        }
    }

    /** Request fields the proxy frames itself: a check's answer cannot give them (as ConfigParser refuses). */
    private static final java.util.Set<String> PROXY_FIELDS = java.util.Set.of("host", "content-length",
            "transfer-encoding", "connection", "keep-alive", "proxy-connection", "te", "upgrade", "expect", "trailer");
    /** A query parameter's name as ingress-nginx's {@code auth-signin-redirect-param} takes it. */
    private static final Pattern PARAM = Pattern.compile("[A-Za-z0-9_.~-]{1,64}");
    /** nginx's ways of writing the request's path and query alone. */
    private static final java.util.Set<String> REQUEST_URI = java.util.Set.of("$escaped_request_uri", "$request_uri");
    /** nginx's ways of writing the request's whole URL, each of which the proxy's {@code {url}} stands for. */
    private static final java.util.Set<String> WHOLE_URL = wholeUrls();

    /**
     * A URL on the request's own host as ingress-nginx's oauth2-proxy example writes it
     * ({@code https://$host/oauth2/auth}): a scheme nginx may give, and one of nginx's names for the request's host
     * (not {@code $server_name}: for a wildcard host it is the pattern). Group 1 is the rest: path, query, fragment.
     */
    private static final Pattern SELF_URL = Pattern.compile(
            "(?:(?i:https?)|\\$scheme|\\$pass_access_scheme)://(?:\\$host|\\$http_host|\\$best_http_host)([/?#].*)?");

    private static java.util.Set<String> wholeUrls() {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (String scheme : List.of("$scheme", "$pass_access_scheme")) {
            for (String host : List.of("$host", "$http_host", "$best_http_host")) {
                for (String uri : REQUEST_URI) {
                    out.add(scheme + "://" + host + uri);
                }
            }
        }
        return java.util.Set.copyOf(out);
    }

    /**
     * ingress-nginx's external authentication ({@code auth-url} with {@code auth-signin},
     * {@code auth-response-headers} and {@code auth-method}) as a {@code forwardAuth}, or null without
     * {@code auth-url}. The URL must name a Service, written as cluster DNS resolves it
     * ({@code http(s)://NAME[.NAMESPACE[.svc[.DOMAIN]]][:PORT]/path?query}, port 80 or 443 by default, DOMAIN the
     * cluster's {@code domain}): that Service and port are the check's backend, the path and query its path. A
     * Service of another namespace must accept references from the Ingress's (its annotation
     * {@code strait.dev/accept-references-from}). Or it names the request's own host
     * ({@code https://$host/oauth2/auth}): the check has no backend and is routed as a request for the path on that
     * host. What cannot be honoured (a host outside the cluster, a Service that does not accept, other nginx
     * variables, a field that cannot be taken) is an error in {@code guard}: the paths answer 503, as ingress-nginx
     * denies a location whose authentication it cannot read, and never serve unchecked. A sign-in or method that
     * cannot be read is only a warning: the check still guards the paths, its 401 going to the client as it is.
     */
    private static RouteSpec.ForwardAuth forwardAuth(Map<String, String> a, String namespace, String domain,
                                                     List<String> guard, List<String> warn) {
        String url = a.get(AUTH_URL);
        if (url == null || url.isBlank()) {
            for (String needsUrl : List.of(AUTH_SIGNIN, AUTH_SIGNIN_REDIRECT_PARAM, AUTH_RESPONSE_HEADERS, AUTH_METHOD,
                    AUTH_SNIPPET, AUTH_PROXY_SET_HEADERS, AUTH_ALWAYS_SET_COOKIE, AUTH_CACHE_KEY, AUTH_CACHE_DURATION)) {
                if (a.get(needsUrl) != null && !a.get(needsUrl).isBlank()) {
                    warn.add(field(needsUrl) + ": applies with " + field(AUTH_URL) + ", which is not set; it has no effect");
                }
            }
            return null;
        }
        String fail = "; the Ingress's paths answer 503 rather than serve them unauthenticated";
        RouteSpec.ForwardAuth f = new RouteSpec.ForwardAuth();
        String problem = checkUrl(url.trim(), namespace, domain, f);
        if (problem != null) {
            guard.add(field(AUTH_URL) + ": \"" + url + "\" " + problem + fail);
            return null;
        }
        String names = a.get(AUTH_RESPONSE_HEADERS);
        if (names != null && !names.isBlank()) {
            List<String> taken = new ArrayList<>();
            for (String part : names.split(",")) {
                String name = part.trim().toLowerCase(Locale.ROOT);
                if (name.isEmpty()) {
                    continue;
                }
                // Left out, a field the app trusts could come from the client instead: nothing is served.
                if (!TOKEN.matcher(name).matches() || PROXY_FIELDS.contains(name)) {
                    guard.add(field(AUTH_RESPONSE_HEADERS) + ": \"" + part.trim() + "\" is not a field the check's answer"
                            + " can give the request" + fail);
                    return null;
                }
                if (!taken.contains(name)) {
                    taken.add(name);
                }
            }
            f.responseHeaders = taken.isEmpty() ? null : taken;
        }
        String method = a.get(AUTH_METHOD);
        if (method != null && !method.isBlank() && !method.trim().equals("GET")) {
            warn.add(field(AUTH_METHOD) + ": \"" + method + "\" is not applied: Strait's check is a GET without body");
        }
        String param = a.get(AUTH_SIGNIN_REDIRECT_PARAM) == null ? "" : a.get(AUTH_SIGNIN_REDIRECT_PARAM).trim();
        if (!param.isEmpty() && !PARAM.matcher(param).matches()) {
            warn.add(field(AUTH_SIGNIN_REDIRECT_PARAM) + ": \"" + param + "\" is not a query parameter's name; rd is used");
            param = "";
        }
        String signIn = a.get(AUTH_SIGNIN);
        if (signIn != null && !signIn.isBlank()) {
            f.signIn = signIn(signIn.trim(), param.isEmpty() ? "rd" : param, warn);
        }
        String always = a.get(AUTH_ALWAYS_SET_COOKIE);
        if ("true".equals(always == null ? null : always.trim())) {
            f.alwaysSetCookie = true;
        } else if (always != null && !always.isBlank() && !always.trim().equals("false")) {
            warn.add(field(AUTH_ALWAYS_SET_COOKIE) + ": \"" + always + "\" is neither true nor false; the check's cookies"
                    + " go out with answers below 400 only");
        }
        f.cache = authCache(a.get(AUTH_CACHE_KEY), a.get(AUTH_CACHE_DURATION), warn);
        return f;
    }

    /**
     * ingress-nginx's {@code auth-cache-key} and {@code auth-cache-duration} as a kept yes, or null (every request
     * asked, with a warning saying why). The key's {@code $http_NAME}, {@code $cookie_NAME} and {@code $remote_user}
     * (the user of {@code Authorization}: the whole field is stricter) are read; any other variable could make a
     * yes depend on something Strait would not key by (the path, the host), so then nothing is kept.
     */
    private static RouteSpec.AuthCache authCache(String key, String duration, List<String> warn) {
        if (key == null || key.isBlank()) {
            if (duration != null && !duration.isBlank()) {
                warn.add(field(AUTH_CACHE_DURATION) + ": applies with " + field(AUTH_CACHE_KEY) + ", which is not set;"
                        + " it has no effect");
            }
            return null;
        }
        String notKept = "; no yes is kept, every request is asked";
        List<String> headers = new ArrayList<>();
        List<String> cookies = new ArrayList<>();
        java.util.regex.Matcher m = CACHE_KEY_PART.matcher(key);
        while (m.find()) {
            String v = m.group(1);
            String name;
            if (v.equals("remote_user") || v.startsWith("http_") && v.length() > 5) {
                name = v.equals("remote_user") ? "authorization" : v.substring(5).replace('_', '-').toLowerCase(Locale.ROOT);
                if (!headers.contains(name)) {
                    headers.add(name);
                }
            } else if (v.startsWith("cookie_") && v.length() > 7) {
                name = v.substring(7);
                if (!cookies.contains(name)) {
                    cookies.add(name);
                }
            } else {
                warn.add(field(AUTH_CACHE_KEY) + ": $" + v + " is not one Strait keys yeses by ($http_NAME, $cookie_NAME,"
                        + " $remote_user)" + notKept);
                return null;
            }
        }
        if (headers.isEmpty() && cookies.isEmpty()) {
            warn.add(field(AUTH_CACHE_KEY) + ": \"" + key + "\" names no request field or cookie" + notKept);
            return null;
        }
        // ingress-nginx's default: 200 202 401 for 5m. Strait keeps yeses only (a refusal is asked again).
        String[] parts = (duration == null || duration.isBlank() ? "200 202 401 5m" : duration.trim()).split("\\s+");
        String time = parts[parts.length - 1];
        boolean yes = parts.length == 1;
        for (int i = 0; i < parts.length - 1; i++) {
            yes |= parts[i].equals("any") || parts[i].length() == 3 && parts[i].charAt(0) == '2';
        }
        if (!yes) {
            warn.add(field(AUTH_CACHE_DURATION) + ": \"" + duration + "\" keeps no 2xx, and Strait keeps yeses only" + notKept);
            return null;
        }
        java.time.Duration d;
        try {
            d = dev.strait.model.Durations.parse(time);
        } catch (IllegalArgumentException e) {
            d = null;
        }
        if (d == null || d.isZero() || d.compareTo(java.time.Duration.ofHours(24)) > 0) {
            warn.add(field(AUTH_CACHE_DURATION) + ": \"" + time + "\" is not a duration of 1ms to 24h (30s, 5m, 1h)" + notKept);
            return null;
        }
        RouteSpec.AuthCache c = new RouteSpec.AuthCache();
        c.headers = headers.isEmpty() ? null : headers;
        c.cookies = cookies.isEmpty() ? null : cookies;
        c.duration = time;
        return c;
    }

    /**
     * Fills {@code f}'s backend and path from an {@code auth-url} naming a Service of {@code namespace} (written in the
     * cluster domain {@code domain}, or relative to it); returns why it cannot, else null.
     */
    private static String checkUrl(String value, String namespace, String domain, RouteSpec.ForwardAuth f) {
        java.util.regex.Matcher self = SELF_URL.matcher(value);
        if (self.matches()) {
            return selfCheck(self.group(1), f);
        }
        if (value.indexOf('$') >= 0) {
            return "uses nginx variables, which Strait does not have";
        }
        URI u;
        try {
            u = new URI(value);
        } catch (URISyntaxException e) {
            return "is not a URL (" + e.getReason() + ")";
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        boolean tls = scheme.equals("https");
        if (!tls && !scheme.equals("http") || u.getHost() == null) {
            return "is not an http URL";
        }
        if (u.getRawUserInfo() != null || u.getRawFragment() != null) {
            return "has user information or a fragment, which the check cannot carry";
        }
        // The names cluster DNS gives a Service: NAME (from a pod of its namespace), NAME.NAMESPACE (the same,
        // through the pods' search domains), NAME.NAMESPACE.svc and NAME.NAMESPACE.svc.DOMAIN.
        String host = u.getHost().toLowerCase(Locale.ROOT);
        String[] labels = host.split("\\.", -1);
        boolean service = labels.length == 1 || labels.length == 2 || ClusterDns.service(host, domain) != null;
        if (!service || !SERVICE_NAME.matcher(labels[0]).matches()) {
            return "is not a Service of the cluster (http(s)://NAME, NAME.NAMESPACE, NAME.NAMESPACE.svc or"
                    + " NAME.NAMESPACE.svc." + domain + ", with an optional port)";
        }
        int port = u.getPort() == -1 ? tls ? 443 : 80 : u.getPort();
        if (port < 1 || port > 65535) {
            return "has no port from 1 to 65535";
        }
        String path = (u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath())
                + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
        if (!path.startsWith("/") || path.length() > 1024 || path.chars().anyMatch(ch -> ch <= 0x20 || ch >= 0x7f)) {
            return "has a path the check cannot send (not ASCII, or longer than 1024)";
        }
        f.backend = new RouteSpec.Backend();
        f.backend.service = new dev.strait.operator.crd.ServiceRef(labels[0], port);
        if (labels.length > 1 && !labels[1].equals(namespace)) {
            f.backend.service.namespace = labels[1]; // asked if it accepts this namespace's references (ADR 0078)
        }
        if (tls) {
            // Over TLS without checking the certificate, as nginx's proxy_ssl_verify (off) and backend-protocol HTTPS.
            f.backend.protocol = RouteSpec.ServiceProtocol.HTTPS;
        }
        f.path = path;
        return null;
    }

    /**
     * Fills {@code f}'s path from the rest of an {@code auth-url} on the request's own host; returns why it cannot,
     * else null. nginx sends that check out through the load balancer and back in to the location another Ingress
     * of the host routes; Strait routes it through its own routes, so there is no backend, and the scheme does not
     * matter (the check never leaves the proxy).
     */
    private static String selfCheck(String rest, RouteSpec.ForwardAuth f) {
        // Without a path the check would ask the site's root, the guarded app itself (the Route CRD's CEL rule too).
        if (rest == null || !rest.startsWith("/")) {
            return "names no path on the request's host for the check to ask";
        }
        if (rest.indexOf('$') >= 0) {
            return "uses nginx variables besides the request's host, which Strait does not have";
        }
        URI u;
        try {
            u = new URI("http://self" + rest);
        } catch (URISyntaxException e) {
            return "is not a URL (" + e.getReason() + ")";
        }
        if (u.getRawFragment() != null) {
            return "has a fragment, which the check cannot carry";
        }
        String path = u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
        if (path.length() > 1024 || path.chars().anyMatch(ch -> ch <= 0x20 || ch >= 0x7f)) {
            return "has a path the check cannot send (not ASCII, or longer than 1024)";
        }
        f.path = path;
        return null;
    }

    /**
     * {@code auth-signin} as a {@code signIn}, or null (a warning) where it cannot be read. ingress-nginx adds
     * {@code rd=$pass_access_scheme://$http_host$escaped_request_uri} unless the URL's query already has the
     * parameter; the proxy's {@code {url}} is that URL, so it stands for the parameter's value when it is one of
     * nginx's spellings of the request's URL ({@code $scheme://$host$escaped_request_uri}, or with
     * {@code $request_uri}, which Strait escapes where nginx sent it raw). A value of the path alone
     * ({@code $escaped_request_uri}, {@code $request_uri}) is the proxy's {@code {uri}}; a fixed one, or other variables,
     * cannot be kept as they are, and the sign-in is not applied. A URL on the request's own host
     * ({@code https://$host/oauth2/start}) becomes its path and query: a relative redirect keeps the client's scheme
     * and host.
     */
    private static String signIn(String value, String param, List<String> warn) {
        String notApplied = "; it is not applied (the check's 401 goes to the client as it is)";
        // On the request's own host, its path and query: a relative redirect keeps the client's scheme and host.
        java.util.regex.Matcher self = SELF_URL.matcher(value);
        String rest = self.matches() && self.group(1) != null ? self.group(1) : "";
        String target = !self.matches() ? value : rest.startsWith("/") ? rest : "/" + rest;
        int q = target.indexOf('?');
        String base = q < 0 ? target : target.substring(0, q);
        boolean absolute = base.startsWith("https://") || base.startsWith("http://");
        if (!absolute && (!base.startsWith("/") || base.startsWith("//"))) {
            warn.add(field(AUTH_SIGNIN) + ": \"" + value + "\" is neither an http(s) URL nor a path starting with /"
                    + notApplied);
            return null;
        }
        if (value.length() > 2000 || value.chars().anyMatch(ch -> ch <= 0x20 || ch >= 0x7f || ch == '#' || ch == '{'
                || ch == '}')) {
            warn.add(field(AUTH_SIGNIN) + ": \"" + value + "\" has spaces, a fragment or braces, or is longer than 2000"
                    + notApplied);
            return null;
        }
        if (base.indexOf('$') >= 0) {
            warn.add(field(AUTH_SIGNIN) + ": \"" + value + "\" uses nginx variables, which Strait does not have"
                    + notApplied);
            return null;
        }
        List<String> params = new ArrayList<>(q < 0 || q == target.length() - 1 ? List.of()
                : List.of(target.substring(q + 1).split("&", -1)));
        boolean given = false;
        for (int i = 0; i < params.size(); i++) {
            String p = params.get(i);
            int eq = p.indexOf('=');
            String name = eq < 0 ? p : p.substring(0, eq);
            String v = eq < 0 ? "" : p.substring(eq + 1);
            if (name.equals(param) && !v.isEmpty() && !given) {
                given = true;
                if (REQUEST_URI.contains(v)) {
                    params.set(i, name + "={uri}"); // the path and query alone, as oauth2-proxy takes it by default
                    continue;
                }
                if (!WHOLE_URL.contains(v)) {
                    warn.add(field(AUTH_SIGNIN) + ": \"" + value + "\" gives " + param + " \"" + v + "\", which Strait"
                            + " cannot send (it sends the request's URL, $scheme://$host$escaped_request_uri)" + notApplied);
                    return null;
                }
                params.set(i, name + "={url}");
            } else if (p.indexOf('$') >= 0) {
                warn.add(field(AUTH_SIGNIN) + ": \"" + value + "\" uses nginx variables, which Strait does not have"
                        + notApplied);
                return null;
            }
        }
        if (!given) {
            params.add(param + "={url}"); // ingress-nginx's own way back
        }
        return base + "?" + String.join("&", params);
    }

    /**
     * A source-range annotation's comma-separated addresses and CIDR blocks, read as nginx reads {@code allow}
     * (bits past a prefix are masked), or null when absent or empty. An entry that is no address or block is
     * an error in {@code guard}: the list cannot be applied, so the paths are not served unguarded.
     */
    private static List<String> ranges(String name, String value, List<String> guard) {
        if (value == null || value.isBlank()) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            String entry = part.trim();
            if (entry.isEmpty()) {
                continue;
            }
            try {
                out.add(dev.strait.model.IpBlock.parseMasked(entry).text());
            } catch (IllegalArgumentException e) {
                guard.add(field(name) + ": " + e.getMessage() + "; the Ingress's paths answer 503 rather than serve"
                        + " every client");
                return null;
            }
        }
        return out.isEmpty() ? null : out;
    }

    /**
     * Why the Ingress's rules answer 503 instead of their backend (a redirect or guard annotation Strait cannot
     * honour): what its status and Events report. Guards do not count where the annotation's redirect answers.
     */
    List<String> problems() {
        List<String> out = new ArrayList<>();
        if (redirectError != null) {
            out.add(redirectError);
        }
        if (redirect == null) {
            out.addAll(guardErrors);
        }
        return out;
    }

    static String field(String annotation) {
        return "metadata.annotations[" + annotation + "]";
    }

    /**
     * Fills {@code r} from a redirect URL, which ingress-nginx sends as given: an absolute http(s) URL or a
     * path on the request's scheme and host. Returns why it cannot be expressed, else null.
     */
    private static String url(String value, RouteSpec.Redirect r) {
        if (value.indexOf('$') >= 0) {
            return "uses nginx variables, which Strait does not have";
        }
        URI u;
        try {
            u = new URI(value.trim());
        } catch (URISyntaxException e) {
            return "is not a URL (" + e.getReason() + ")";
        }
        if (u.getRawQuery() != null) {
            return "has a query: a redirect keeps the request's query, so a fixed one cannot be expressed";
        }
        if (u.getRawFragment() != null) {
            return "has a fragment, which a redirect cannot carry";
        }
        if (u.getScheme() == null) {
            if (u.getRawAuthority() != null || u.getRawPath() == null || !u.getRawPath().startsWith("/")) {
                return "is neither an http(s) URL nor a path starting with /";
            }
        } else {
            String scheme = u.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                return "is not an http or https URL";
            }
            if (u.getRawUserInfo() != null) {
                return "has user information, which a redirect cannot carry";
            }
            String host = u.getHost() == null ? null : u.getHost().toLowerCase(Locale.ROOT);
            if (host == null || !HOST.matcher(host).matches()) {
                return "has no host name Strait can redirect to (IP literals in brackets are not supported)";
            }
            r.scheme = scheme.equals("https") ? RouteSpec.Scheme.HTTPS : RouteSpec.Scheme.HTTP;
            r.hostname = host;
            // Explicit, so the request's port never leaks into a URL that named none.
            r.port = u.getPort() != -1 ? u.getPort() : scheme.equals("https") ? 443 : 80;
        }
        // No path (https://example.com) is the root, as browsers read it.
        String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
        if (PathNormalizer.normalize(path) == null) {
            return "has a path that is not a request path (spaces, non-ASCII characters or a broken escape)";
        }
        r.path = new RouteSpec.PathModifier();
        r.path.replaceFullPath = path;
        return null;
    }

    /**
     * A path of the Ingress as a rule: its match and rewrite, or why it cannot be served (the path answers 503).
     *
     * @param source the path's place among those given to {@link #rewrite}
     */
    record Rewritten(int source, RouteSpec.PathType type, String path, RouteSpec.PathRewrite rewrite, String error) {}

    /**
     * The paths of one host of the Ingress ({@code types}, {@code paths}, their {@code fields}) as rules, in the
     * order the rules take. ingress-nginx turns a host's paths into case-insensitive regexes anchored at the
     * start ({@code location ~* "^path"}) once {@code use-regex} or a {@code rewrite-target} is set, tries them
     * longest first, and rewrites the whole URI to the target with {@code $n} from the path's groups. Where
     * every path has an exact form of its own (a literal path, the documented idiom {@code /prefix(/|$)(.*)}
     * with {@code /$2}, a literal target) those faster Prefix and Exact matches are kept, in the Ingress's
     * order (ADR 0054); once one path can only be a regex, all of them are, in ingress-nginx's order, so that
     * a {@code /} or a shorter prefix cannot answer before the longer regex nginx would have chosen (ADR 0058).
     * With a redirect the rewrite does not apply and the paths stay as written.
     */
    List<Rewritten> rewrite(List<RouteSpec.PathType> types, List<String> paths, List<String> fields, boolean redirected) {
        return rewrite(types, paths, fields, redirected, false);
    }

    /**
     * As {@link #rewrite(List, List, List, boolean)}; with {@code hostRegex} the paths are regexes whatever they
     * are, because another Ingress on the host needs one: ingress-nginx makes every location of a host (a server,
     * which merges the host's Ingresses) a regex once one of them is (ADR 0074).
     */
    List<Rewritten> rewrite(List<RouteSpec.PathType> types, List<String> paths, List<String> fields, boolean redirected,
                            boolean hostRegex) {
        List<Rewritten> out = new ArrayList<>(paths.size());
        boolean regex = hostRegex;
        for (int i = 0; i < paths.size(); i++) {
            Rewritten r = redirected ? new Rewritten(i, types.get(i), paths.get(i), null, null)
                    : exact(i, types.get(i), paths.get(i), fields.get(i));
            // A regex path that cannot be served still takes its regex, so that its 503 answers where nginx routed.
            regex |= r == null || r.error() != null && !literal(paths.get(i));
            out.add(r);
        }
        if (!regex) {
            return out;
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
            order.add(i);
        }
        // ingress-nginx sorts a host's locations by path, then (stably) by length, both descending.
        order.sort(Comparator.comparingInt((Integer i) -> paths.get(i).length()).reversed()
                .thenComparing((Integer i) -> paths.get(i), Comparator.reverseOrder()));
        List<Rewritten> sorted = new ArrayList<>(paths.size());
        for (int i : order) {
            sorted.add(asRegex(i, paths.get(i), fields.get(i), out.get(i), redirected));
        }
        return sorted;
    }

    /**
     * The path as it maps exactly without a regex (ADR 0054), an error, or null when only a regex can express
     * it: ingress-nginx (since 0.22) rewrites the whole URI to the target, so a literal target on a literal path
     * is {@code replaceFullPath}, and {@code /prefix(/|$)(.*)} with {@code /$2} is the prefix stripped
     * ({@code Prefix /prefix}, {@code replacePrefixMatch: /}). A target equal to the path is no rewrite.
     */
    private Rewritten exact(int i, RouteSpec.PathType type, String path, String pathField) {
        String target = rewriteTarget;
        if (target == null || target.equals(path)) {
            return useRegex && !literal(path) ? null : new Rewritten(i, type, path, null, null);
        }
        if (path.endsWith(STRIP_IDIOM)) {
            String prefix = path.substring(0, path.length() - STRIP_IDIOM.length());
            if (target.equals("/$2") && prefix.startsWith("/") && !prefix.endsWith("/") && literal(prefix)) {
                RouteSpec.PathRewrite m = new RouteSpec.PathRewrite();
                m.replacePrefixMatch = "/";
                return new Rewritten(i, RouteSpec.PathType.Prefix, prefix, m, null);
            }
        }
        String problem = targetProblem(target);
        if (problem != null) {
            return unsupported(i, type, path, pathField, problem);
        }
        if (target.indexOf('$') < 0 && literal(path)) {
            RouteSpec.PathRewrite m = new RouteSpec.PathRewrite();
            m.replaceFullPath = target;
            return new Rewritten(i, type, path, m, null);
        }
        return null;
    }

    /**
     * The path as ingress-nginx's regex location: {@code (?i)^path.*} matches the whole path exactly when
     * nginx's {@code ~* "^path"} finds it at the start, with the same groups (the {@code .*} after it always
     * matches the rest, so the first way the path matches is the one kept). The rewrite uses the same pattern:
     * it matches once, the whole path, so its replacement is the whole new path, as nginx's {@code rewrite}.
     * A path Java cannot read, or reads otherwise than nginx, is an error (a 503); so is one that had an error
     * before (a target that is no path).
     */
    private Rewritten asRegex(int i, String path, String pathField, Rewritten exact, boolean redirected) {
        String pattern = "(?i)^" + path + ".*";
        String problem = javaReadsAsNginx(path);
        if (problem != null) {
            // Its 503 answers about where nginx would route; what Java cannot compile, as a literal.
            try {
                Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                pattern = "(?i)^" + Pattern.quote(path) + ".*";
            }
            String why = rewriteTarget != null ? field(REWRITE_TARGET) : useRegex ? field(USE_REGEX)
                    : "another Ingress's use-regex or rewrite-target on the host makes its paths regexes";
            return new Rewritten(i, RouteSpec.PathType.RegularExpression, pattern, null,
                    why + ": " + pathField + " \"" + path + "\" " + problem + "; the path answers 503");
        }
        if (exact != null && exact.error() != null) {
            return new Rewritten(i, RouteSpec.PathType.RegularExpression, pattern, null, exact.error());
        }
        String target = redirected ? null : rewriteTarget;
        if (target == null || target.equals(path)) {
            return new Rewritten(i, RouteSpec.PathType.RegularExpression, pattern, null, null);
        }
        RouteSpec.PathRewrite m = new RouteSpec.PathRewrite();
        if (target.indexOf('$') < 0) {
            m.replaceFullPath = target;
        } else {
            m.replaceRegexMatch = new RouteSpec.RegexRewrite();
            m.replaceRegexMatch.pattern = pattern;
            m.replaceRegexMatch.substitution = substitution(target, Pattern.compile(path).matcher("").groupCount());
        }
        return new Rewritten(i, RouteSpec.PathType.RegularExpression, pattern, m, null);
    }

    /** Why a rewrite-target cannot be sent as a path, or null. */
    private static String targetProblem(String target) {
        if (target.startsWith("http://") || target.startsWith("https://")) {
            return "a target that is a URL makes nginx redirect; use permanent-redirect or temporal-redirect";
        }
        if (target.indexOf('?') >= 0 || target.indexOf('#') >= 0) {
            return "a target must be a request path without query";
        }
        for (int k = target.indexOf('$'); k >= 0; k = target.indexOf('$', k + 1)) {
            char d = k + 1 < target.length() ? target.charAt(k + 1) : 0;
            if (d < '1' || d > '9') {
                return "nginx variables such as $host or $request_uri are not known to Strait; $1 to $9 are";
            }
        }
        if (target.indexOf('$') < 0) {
            return !target.startsWith("/") || PathNormalizer.normalize(target) == null
                    ? "a target must be a request path without query" : null;
        }
        try {
            PathSubstitution.parse(target);
            return null;
        } catch (IllegalArgumentException e) {
            return "a target must be a request path without query: " + e.getMessage();
        }
    }

    /**
     * The target as a substitution: nginx's {@code $1}..{@code $9} read alike, and a group the path does not
     * have gives nothing, as in nginx (so {@code /$1} on a path without groups sends {@code /}).
     */
    private static String substitution(String target, int groups) {
        StringBuilder b = new StringBuilder(target.length());
        for (int k = 0; k < target.length(); k++) {
            char c = target.charAt(k);
            if (c == '$') {
                int g = target.charAt(k + 1) - '0';
                if (g <= groups) {
                    b.append(c).append(target.charAt(k + 1));
                }
                k++;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /**
     * Why Java would not read {@code path} as nginx does (PCRE, after nginx's configuration has taken its
     * quoting), or null: Java must compile it, and constructs the two read differently are refused rather than
     * served with another meaning.
     */
    static String javaReadsAsNginx(String path) {
        try {
            Pattern.compile(path);
        } catch (PatternSyntaxException e) {
            return "is not a regular expression Java reads (" + e.getDescription() + " near index " + e.getIndex()
                    + ")";
        }
        int depth = 0;
        boolean inClass = false;
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            char next = i + 1 < path.length() ? path.charAt(i + 1) : 0;
            if (c == '\\') {
                if (next == '\\') {
                    return "has \"\\\\\", which nginx's configuration reads as one backslash";
                }
                if (next == 'Q') {
                    int end = path.indexOf("\\E", i + 2);
                    if (end < 0) {
                        return "has \"\\Q\" without \"\\E\"";
                    }
                    i = end + 1;
                } else {
                    i++;
                }
            } else if (inClass) {
                if (c == '[') {
                    return "has \"[\" inside a character class (a POSIX class or a nested one), which PCRE and Java "
                            + "read differently";
                }
                if (c == '&' && next == '&') {
                    return "has \"&&\" inside a character class: an intersection to Java, two characters to PCRE";
                }
                inClass = c != ']';
            } else if (c == '[') {
                inClass = true;
                // A "]" first in the class (after a "^") is a character to both.
                int j = next == '^' ? i + 2 : i + 1;
                i = j < path.length() && path.charAt(j) == ']' ? j : j - 1;
            } else if (c == '(') {
                depth++;
                if (next == '?') {
                    int j = i + 2;
                    while (j < path.length() && (Character.isLetter(path.charAt(j)) || path.charAt(j) == '-')) {
                        j++;
                    }
                    String flags = path.substring(i + 2, j);
                    boolean flagGroup = !flags.isEmpty() && j < path.length()
                            && (path.charAt(j) == ')' || path.charAt(j) == ':');
                    if (flagGroup && !flags.matches("[ims-]+")) {
                        return "sets flags \"" + flags + "\", which PCRE and Java read differently (i, m and s are alike)";
                    }
                }
            } else if (c == ')') {
                depth--;
            } else if (c == '|' && depth == 0) {
                return "has \"|\" outside a group, which nginx reads after \"^\" as \"starts with the first, or holds "
                        + "the second anywhere\"; put the choices in a group";
            }
        }
        return null;
    }

    private Rewritten unsupported(int i, RouteSpec.PathType type, String path, String pathField, String why) {
        return new Rewritten(i, type, path, null, field(REWRITE_TARGET) + ": \"" + rewriteTarget + "\" with "
                + pathField + " \"" + path + "\" cannot be expressed (" + why + "); the path answers 503");
    }

    private static boolean literal(String path) {
        return !REGEX_CHARS.matcher(path).find();
    }
}
