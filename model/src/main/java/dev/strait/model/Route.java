package dev.strait.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A virtual host: the host names it answers and its rules, tried in the documented precedence
 * (see docs/config.md).
 *
 * @param listeners      the names of the listeners that serve this route, or {@code null} for every listener
 *                       (Gateway API's {@code parentRefs[].sectionName}); never empty
 * @param tlsPassthrough where a TLS listener sends the connections whose ClientHello names one of the hosts, as
 *                       they are (the upstream ends TLS), or {@code null}; such a route has no rules
 */
public record Route(String name, List<String> hosts, List<Rule> rules, List<String> listeners,
                    TlsPassthrough tlsPassthrough, Hsts hsts) {

    public Route {
        hosts = List.copyOf(hosts);
        rules = List.copyOf(rules);
        listeners = listeners == null ? null : List.copyOf(listeners);
    }

    /** A route whose answers carry no {@code Strict-Transport-Security} of the proxy's. */
    public Route(String name, List<String> hosts, List<Rule> rules, List<String> listeners,
                 TlsPassthrough tlsPassthrough) {
        this(name, hosts, rules, listeners, tlsPassthrough, null);
    }

    /**
     * HTTP Strict Transport Security (RFC 6797) for a route's hosts: every answer its rules give over https (the
     * connection's scheme, or a trusted peer's {@code X-Forwarded-Proto}) carries {@code Strict-Transport-Security},
     * unless it has one of its own; never over plain HTTP (RFC 6797 7.2). ingress-nginx's {@code hsts},
     * {@code hsts-max-age}, {@code hsts-include-subdomains}, {@code hsts-preload}.
     */
    public record Hsts(long maxAgeSeconds, boolean includeSubDomains, boolean preload) {
        /** One year: ingress-nginx's default, and the least the browsers' preload lists take. */
        public static final long DEFAULT_MAX_AGE = 31_536_000;

        /** The field's value: {@code max-age=31536000; includeSubDomains}. */
        public String value() {
            return "max-age=" + maxAgeSeconds + (includeSubDomains ? "; includeSubDomains" : "") + (preload ? "; preload" : "");
        }
    }

    /** A route whose rules answer (no TLS passthrough). */
    public Route(String name, List<String> hosts, List<Rule> rules, List<String> listeners) {
        this(name, hosts, rules, listeners, null);
    }

    /**
     * TLS passthrough (ingress-nginx's {@code ssl-passthrough}, Contour's {@code tls.passthrough}): a TLS
     * listener does not end TLS for the route's hosts but relays the connection's bytes, ClientHello first, to an
     * endpoint of {@code upstream}, which holds the certificate. Plain-HTTP requests for the hosts get a 308 to
     * https.
     *
     * @param proxyProtocol the PROXY protocol version (1 or 2) of a header sent ahead of the client's bytes, naming
     *                      the client to the backend; 0: none
     */
    public record TlsPassthrough(String upstream, int proxyProtocol) {
        public TlsPassthrough(String upstream) {
            this(upstream, 0);
        }
    }

    /** A route served on every listener. */
    public Route(String name, List<String> hosts, List<Rule> rules) {
        this(name, hosts, rules, null);
    }

    /** Whether the listener named {@code listener} serves this route. */
    public boolean servedOn(String listener) {
        return listeners == null || listeners.contains(listener);
    }

    /**
     * One rule: when any of its matches fits, its single action answers.
     *
     * @param hostRewrite with {@code backends}: the Host sent upstream instead of the client's ({@code null}: kept)
     * @param fastcgi     how requests become FastCGI requests; set exactly when the backends speak fastcgi
     * @param pathRewrite with {@code backends} (not FastCGI): the path sent upstream instead of the client's
     *                    ({@code null}: kept as the client sent it)
     * @param maxBodyBytes the request body bytes the rule takes before 413, instead of {@code limits.maxBodyBytes}
     *                    (nginx's {@code client_max_body_size} in a location); {@code null}: the limits' value
     * @param requestHeaders  what the rule changes in the request's fields before its action sees them, or null
     * @param responseHeaders what it changes in the fields of every answer its action gives, or null
     * @param inFlightLimit   how many requests each client may have in flight at once, or null for any number
     * @param forwardAuth     the service asked whether each request may pass before the action sees it, or null
     * @param mirrors         where copies of the requests the action serves are sent too, their answers dropped
     * @param responseRewrite with {@code backends}: what changes in the {@code Location}, {@code Refresh} and
     *                        {@code Set-Cookie} fields of the upstream's answers, or null
     * @param requestBuffering with HTTP {@code backends}: how much of a request body is read before the upstream
     *                        is asked (nginx's {@code proxy_request_buffering}), or null to stream it as it comes
     * @param responseRate    with {@code backends}: how fast each answer's body goes to the client (nginx's
     *                        {@code limit_rate}), or null for as fast as the client takes it
     * @param tracing         whether the rule's requests are traced while the config has {@code tracing}; false:
     *                        no span, and a client's {@code traceparent} passes as sent
     * @param compression     which of the action's answers are sent gzip-compressed to clients that take it, or null
     *                        for none
     */
    public record Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                       String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                       BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                       HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy, ErrorPages errorPages,
                       boolean accessLog, ForwardAuth forwardAuth, List<Mirror> mirrors, ResponseRewrite responseRewrite,
                       RequestBuffering requestBuffering, ResponseRate responseRate, boolean tracing,
                       Compression compression, JwtAuth jwtAuth) {
        public Rule {
            matches = List.copyOf(matches);
            if (satisfy == null) {
                satisfy = Satisfy.ALL;
            }
            mirrors = mirrors == null ? List.of() : List.copyOf(mirrors);
        }

        /** A rule that asks for no JSON Web Token. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy, ErrorPages errorPages,
                    boolean accessLog, ForwardAuth forwardAuth, List<Mirror> mirrors, ResponseRewrite responseRewrite,
                    RequestBuffering requestBuffering, ResponseRate responseRate, boolean tracing,
                    Compression compression) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, errorPages,
                    accessLog, forwardAuth, mirrors, responseRewrite, requestBuffering, responseRate, tracing, compression,
                    null);
        }

        /** A rule whose answers go as the action gives them, never compressed by the proxy. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy, ErrorPages errorPages,
                    boolean accessLog, ForwardAuth forwardAuth, List<Mirror> mirrors, ResponseRewrite responseRewrite,
                    RequestBuffering requestBuffering, ResponseRate responseRate, boolean tracing) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, errorPages,
                    accessLog, forwardAuth, mirrors, responseRewrite, requestBuffering, responseRate, tracing, null);
        }

        /** A rule whose requests are traced while the config has {@code tracing}. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy, ErrorPages errorPages,
                    boolean accessLog, ForwardAuth forwardAuth, List<Mirror> mirrors, ResponseRewrite responseRewrite,
                    RequestBuffering requestBuffering, ResponseRate responseRate) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, errorPages,
                    accessLog, forwardAuth, mirrors, responseRewrite, requestBuffering, responseRate, true);
        }

        /** A rule whose answers go as fast as the client takes them. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy, ErrorPages errorPages,
                    boolean accessLog, ForwardAuth forwardAuth, List<Mirror> mirrors, ResponseRewrite responseRewrite,
                    RequestBuffering requestBuffering) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, errorPages,
                    accessLog, forwardAuth, mirrors, responseRewrite, requestBuffering, null);
        }

        /** A rule whose request bodies stream to the upstream as they come. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy, ErrorPages errorPages,
                    boolean accessLog, ForwardAuth forwardAuth, List<Mirror> mirrors, ResponseRewrite responseRewrite) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, errorPages,
                    accessLog, forwardAuth, mirrors, responseRewrite, null);
        }

        /** A rule whose upstream's answers keep their redirects and cookies as they are. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy, ErrorPages errorPages,
                    boolean accessLog, ForwardAuth forwardAuth, List<Mirror> mirrors) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, errorPages,
                    accessLog, forwardAuth, mirrors, null);
        }

        /** A rule whose requests are not mirrored. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy, ErrorPages errorPages,
                    boolean accessLog, ForwardAuth forwardAuth) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, errorPages,
                    accessLog, forwardAuth, List.of());
        }

        /** A rule that asks no authorization service. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy, ErrorPages errorPages,
                    boolean accessLog) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, errorPages,
                    accessLog, null);
        }

        /** A rule whose requests are logged when the access log is on. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy, ErrorPages errorPages) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, errorPages, true);
        }

        /** A rule whose answers go out as they are. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit, Satisfy satisfy) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, null);
        }

        /** A rule that asks every guard it has. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders, InFlightLimit inFlightLimit) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, Satisfy.ALL);
        }

        /** A rule without an in-flight limit. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes, HeaderEdits requestHeaders,
                    HeaderEdits responseHeaders) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, null);
        }

        /** A rule that changes no header fields. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors, Long maxBodyBytes) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, maxBodyBytes, null, null);
        }

        /** A rule with the limits' body size. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit, Cors cors) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, cors, null);
        }

        /** A rule without CORS. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth, RateLimit rateLimit) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    rateLimit, null);
        }

        /** A rule without a rate limit. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite, ClientAddresses clientAddresses,
                    BasicAuth basicAuth) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, clientAddresses, basicAuth,
                    null, null);
        }

        /** A rule that serves every client. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi, PathModifier pathRewrite) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite, null, null, null, null);
        }

        /** A rule without path rewrite. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries,
                    String hostRewrite, FastCgi fastcgi) {
            this(matches, action, cache, timeouts, retries, hostRewrite, fastcgi, null, null, null, null, null);
        }

        /** A rule without host rewrite, path rewrite or FastCGI settings. */
        public Rule(List<Match> matches, Action action, Cache cache, Timeouts timeouts, Retries retries) {
            this(matches, action, cache, timeouts, retries, null, null, null);
        }
    }

    /**
     * What a rule with both {@code clientAddresses} and {@code basicAuth} asks of a request (nginx's
     * {@code satisfy}): {@code ALL}, both (the default); {@code ANY}, either: a client the addresses admit
     * needs no credentials, and any other client is asked for them rather than refused.
     */
    public enum Satisfy { ALL, ANY }

    /**
     * Error pages (nginx's {@code error_page} with {@code proxy_intercept_errors}, Traefik's errors middleware,
     * ingress-nginx's {@code custom-http-errors}): an answer of the rule with one of {@code statuses}, its
     * action's or the proxy's own (502, 503, 504), is replaced by {@code GET path} from {@code upstream},
     * sent to the client with the original status.
     *
     * @param path the page's path; {@code {status}} in it stands for the status ({@code /errors/{status}.html})
     */
    public record ErrorPages(List<Integer> statuses, String upstream, String path) {
        public ErrorPages {
            statuses = statuses.stream().distinct().sorted().toList();
        }
    }

    /**
     * A request body read before the upstream is asked, as nginx's {@code proxy_request_buffering} does, so that a
     * slow upload never holds one of the upstream's workers (a gunicorn sync worker, a thread): up to
     * {@code maxBytes}, the first {@code memoryBytes} of it in memory and the rest in a file of the config's
     * {@code requestBodyFiles} (nginx's {@code client_body_buffer_size} and temporary file); the rest of a longer
     * body streams from there, as does the rest of one the files cannot take.
     */
    public record RequestBuffering(long maxBytes, long memoryBytes) {
        /** What a body may hold in memory when the rule does not say: 1 MiB, or {@code maxBytes} if less. */
        public static final long DEFAULT_MEMORY = 1L << 20;

        /** {@code maxBytes}, held in memory up to {@link #DEFAULT_MEMORY}. */
        public RequestBuffering(long maxBytes) {
            this(maxBytes, Math.min(maxBytes, DEFAULT_MEMORY));
        }
    }

    /**
     * How fast an answer's body goes to the client, as nginx's {@code limit_rate} and {@code limit_rate_after}:
     * the first {@code afterBytes} at once, then {@code bytesPerSecond}, per request (two downloads at once get
     * twice the rate).
     */
    public record ResponseRate(long bytesPerSecond, long afterBytes) {}

    /**
     * Compressed answers for a rule (nginx's {@code gzip} and {@code brotli}, Caddy's {@code encode}, Traefik's
     * {@code compress}): an answer whose media type is one of {@code types} ({@code text/html}, or {@code text/*} for
     * a whole top-level type) and whose body is at least {@code minBytes} long (or of unknown length) goes compressed
     * in the first of {@code codings} the client's {@code Accept-Encoding} takes (its weights first, this list's order
     * on a tie), at {@code level}: 1 fastest to 9 smallest, each coding at its own level of that number (zlib's 1-9,
     * zstd's 1-9 of its 1-22, brotli's quality 1-9 of its 0-11).
     */
    public record Compression(List<String> types, long minBytes, int level, List<String> codings) {
        /** Text formats that compress well; images, video and archives are compressed already. */
        public static final List<String> DEFAULT_TYPES = List.of("text/html", "text/css", "text/plain", "text/xml",
                "text/javascript", "text/csv", "text/markdown", "application/javascript", "application/json",
                "application/xml", "application/xhtml+xml", "application/rss+xml", "application/atom+xml",
                "application/ld+json", "application/manifest+json", "application/geo+json", "application/wasm",
                "image/svg+xml", "image/x-icon", "font/ttf", "font/otf", "application/vnd.ms-fontobject");
        /** Below this a body gains less than the gzip framing and a round of zlib costs (Traefik's default). */
        public static final long DEFAULT_MIN_BYTES = 1024;
        /** zlib's fastest level, nginx's and ingress-nginx's default: most of the gain at a third of level 6's CPU. */
        public static final int DEFAULT_LEVEL = 1;
        /** The codings {@code codings} may name, in the order a client's tie is broken by default. */
        public static final List<String> CODINGS = List.of("zstd", "br", "gzip");
        /**
         * zstd where the client takes it (every current browser; smaller than gzip at a fraction of its CPU), else gzip
         * (every client), as Caddy's {@code encode}; brotli at the fast levels is no smaller than zstd and costs more,
         * so it is asked for by name (ingress-nginx's {@code enable-brotli}).
         */
        public static final List<String> DEFAULT_CODINGS = List.of("zstd", "gzip");
        public static final Compression DEFAULTS = new Compression(DEFAULT_TYPES, DEFAULT_MIN_BYTES, DEFAULT_LEVEL,
                DEFAULT_CODINGS);

        public Compression {
            types = List.copyOf(types);
            codings = codings == null ? DEFAULT_CODINGS : List.copyOf(codings);
        }

        public Compression(List<String> types, long minBytes, int level) {
            this(types, minBytes, level, DEFAULT_CODINGS);
        }
    }

    /**
     * What changes in an upstream's answers for an app that does not know the URL it is served under (behind a
     * {@code pathRewrite} or a {@code hostRewrite}): nginx's {@code proxy_redirect}, {@code proxy_cookie_path} and
     * {@code proxy_cookie_domain}. In each list the first entry that matches applies.
     *
     * @param location     {@code Location} and the URL of {@code Refresh}: a value starting with {@code from} has that
     *                     start replaced by {@code to}
     * @param cookiePath   each {@code Set-Cookie}'s {@code Path}: one starting with {@code from} has that start replaced
     * @param cookieDomain each {@code Set-Cookie}'s {@code Domain}: one equal to {@code from} (any case, a leading dot
     *                     aside) is replaced by {@code to}
     */
    public record ResponseRewrite(List<Replace> location, List<Replace> cookiePath, List<Replace> cookieDomain) {
        public ResponseRewrite {
            location = location == null ? List.of() : List.copyOf(location);
            cookiePath = cookiePath == null ? List.of() : List.copyOf(cookiePath);
            cookieDomain = cookieDomain == null ? List.of() : List.copyOf(cookieDomain);
        }
    }

    /**
     * One replacement of a {@link ResponseRewrite}; {@code to} may hold {@code {host}} (the request's host, without
     * port) and {@code {scheme}} (the scheme the client used).
     */
    public record Replace(String from, String to) {}

    /**
     * Request mirroring (nginx's {@code mirror}, ingress-nginx's {@code mirror-target}, Envoy's request mirror
     * policy, Gateway API's {@code RequestMirror}): a share of the requests the rule's action serves is copied to
     * {@code upstream} as well, body included, and its answers are dropped. The client never waits for a mirror:
     * one that falls behind the client's body, or too many in flight, is given up (ADR 0086).
     *
     * @param percent     the share of requests copied, over 0 and at most 100
     * @param hostRewrite the Host the copies carry instead of the client's ({@code null}: kept)
     * @param body        whether copies carry the request's body; without it they go as bodiless requests
     */
    public record Mirror(String upstream, double percent, String hostRewrite, boolean body) {
        /** Every request copied to {@code upstream}, with its body and Host. */
        public Mirror(String upstream) {
            this(upstream, 100, null, true);
        }
    }

    /**
     * Forward authentication (nginx's {@code auth_request}, Traefik's ForwardAuth, Envoy's ext_authz over HTTP,
     * ingress-nginx's {@code auth-url}): before the action sees a request, {@code GET path} goes to
     * {@code upstream} with the request's fields and where it was going ({@code X-Original-URI},
     * {@code X-Forwarded-Method}, ...). A 2xx answer lets the request pass, with {@code responseHeaders} copied
     * from that answer onto it (any the client sent under those names are dropped first); any other answer is
     * the client's, except a 401 when {@code signIn} is set, which becomes a 302 to it.
     *
     * @param upstream        where the check goes; {@code null}: through this proxy's own routes, as a request
     *                        for {@code path} on the request's host (nginx's {@code auth_request} to a location,
     *                        ingress-nginx's {@code auth-url: https://$host/oauth2/auth})
     * @param path            the check's path and query on the upstream ({@code /oauth2/auth})
     * @param responseHeaders names of the answer's fields the request takes on (lower case), such as
     *                        {@code x-auth-request-user}
     * @param signIn          where a 401 sends the client, or null; {@code {url}} in it stands for the request's
     *                        whole URL, escaped, {@code {uri}} for its path and query alone, escaped (what
     *                        oauth2-proxy takes without a domain allow-list); without either {@code rd={url}}
     *                        is added to its query
     * @param alwaysSetCookie the check's {@code Set-Cookie} goes out with every answer to an allowed request, errors
     *                        too (ingress-nginx's {@code auth-always-set-cookie}); by default only with answers
     *                        below 400
     * @param cache           how long a yes is kept, and for which credentials, or null: every request is asked
     */
    public record ForwardAuth(String upstream, String path, List<String> responseHeaders, String signIn,
                              boolean alwaysSetCookie, AuthCache cache) {
        public ForwardAuth {
            responseHeaders = responseHeaders.stream().distinct().toList();
        }

        public ForwardAuth(String upstream, String path, List<String> responseHeaders, String signIn,
                           boolean alwaysSetCookie) {
            this(upstream, path, responseHeaders, signIn, alwaysSetCookie, null);
        }

        public ForwardAuth(String upstream, String path, List<String> responseHeaders, String signIn) {
            this(upstream, path, responseHeaders, signIn, false, null);
        }
    }

    /**
     * A forward-auth check's yes kept for {@code duration} (ingress-nginx's {@code auth-cache-key} and
     * {@code auth-cache-duration}): a request whose {@code headers} and {@code cookies} have the values of one that
     * was let in passes without asking, with the fields that answer granted. Only a 2xx without {@code Set-Cookie}
     * is kept (a refusal is asked again every time); each rule keeps its own, per event loop.
     *
     * @param headers lower-case names of the request fields that say who the client is ({@code authorization})
     * @param cookies names of the cookies that do ({@code _oauth2_proxy})
     */
    public record AuthCache(List<String> headers, List<String> cookies, java.time.Duration duration) {
        public AuthCache {
            headers = List.copyOf(headers);
            cookies = List.copyOf(cookies);
        }
    }

    /**
     * Header fields a rule changes (Gateway API's RequestHeaderModifier and ResponseHeaderModifier, nginx's
     * {@code proxy_set_header} and {@code add_header ... always}): {@code remove} drops a field, {@code set}
     * replaces it (or adds it), {@code add} adds a line beside any there; in that order. Names compare
     * case-insensitively.
     */
    public record HeaderEdits(Map<String, String> set, Map<String, String> add, List<String> remove) {
        public HeaderEdits {
            set = Map.copyOf(set);
            add = Map.copyOf(add);
            remove = remove.stream().distinct().sorted().toList(); // an order would mean nothing
        }
    }

    /**
     * Which clients a rule answers (ADR 0060; nginx's {@code allow} and {@code deny}, ingress-nginx's
     * {@code allowlist-source-range} and {@code denylist-source-range}): a client in {@code deny} gets 403,
     * and so does one not in {@code allow} when {@code allow} is not empty. The client is the connection's
     * peer, or the one a trusted peer names in {@code X-Forwarded-For} (ADR 0059). It is no match: a
     * refused client is answered, not passed on to the next rule.
     */
    public record ClientAddresses(List<IpBlock> allow, List<IpBlock> deny) {
        public ClientAddresses {
            allow = List.copyOf(allow);
            deny = List.copyOf(deny);
        }

        /** Whether the rule answers a client at {@code client}; {@code null} (no IP address) only where no allow list is. */
        public boolean allows(java.net.InetAddress client) {
            if (client == null) {
                return allow.isEmpty();
            }
            return !IpBlock.anyContains(deny, client) && (allow.isEmpty() || IpBlock.anyContains(allow, client));
        }
    }

    /**
     * HTTP Basic authentication (RFC 7617; nginx's {@code auth_basic}, ingress-nginx's {@code auth-type: basic}):
     * a request without the credentials of one of the users gets 401 with a challenge naming {@code realm}.
     *
     * @param realm    shown by browsers in their prompt
     * @param htpasswd the users, {@code name:hash} per line ({@link Htpasswd}), as {@code htpasswd} writes them
     */
    public record BasicAuth(String realm, String htpasswd) {
        public static final String DEFAULT_REALM = "Restricted";
    }

    /**
     * JSON Web Token authentication (ADR 0108; Envoy's {@code jwt_authn}, nginx's {@code auth_jwt}, Contour's JWT
     * verification): a request must carry a token ({@code Authorization: Bearer}, or {@code cookie}) signed by one of
     * the keys, current, and from {@code issuer} for one of {@code audiences}; else 401 with an RFC 6750 challenge.
     *
     * @param issuer       the {@code iss} a token must have; null: any
     * @param audiences    values of which a token's {@code aud} must hold one; empty: any
     * @param jwks         the keys, a JWK Set as JSON; null when {@code jwksUri} gives them
     * @param jwksUri      where the keys are fetched (http or https: an identity provider's {@code jwks_uri}); null
     *                     with {@code jwks}, or when the issuer's OpenID discovery document names it
     *                     ({@link #discovers})
     * @param refresh      how often keys from {@code jwksUri} are fetched again
     * @param optional     a request without a token passes, without the claims' fields; one with a bad token never
     * @param cookie       the cookie a token is read from when the request has no {@code Authorization: Bearer}; null:
     *                     none
     * @param claimHeaders request fields set from the token's claims for the upstream, over any the client sent
     * @param realm        named in the challenge
     * @param require      claims a valid token must hold one of the listed values in, each (else 403,
     *                     {@code insufficient_scope}); empty: none
     */
    public record JwtAuth(String issuer, List<String> audiences, String jwks, String jwksUri, Duration refresh,
                          boolean optional, String cookie, List<ClaimHeader> claimHeaders, String realm,
                          List<ClaimRequirement> require) {
        public static final Duration DEFAULT_REFRESH = Duration.ofMinutes(10);

        public JwtAuth {
            audiences = List.copyOf(audiences);
            claimHeaders = List.copyOf(claimHeaders);
            require = require == null ? List.of() : List.copyOf(require);
        }

        public JwtAuth(String issuer, List<String> audiences, String jwks, String jwksUri, Duration refresh,
                       boolean optional, String cookie, List<ClaimHeader> claimHeaders, String realm) {
            this(issuer, audiences, jwks, jwksUri, refresh, optional, cookie, claimHeaders, realm, List.of());
        }

        /** Whether the keys' URL comes from {@code issuer}'s OpenID discovery document (neither keys nor URL given). */
        public boolean discovers() {
            return jwks == null && jwksUri == null;
        }
    }

    /**
     * A claim a token must hold one of {@code anyOf} in: a list claim among its members, a text claim among its
     * words ({@code scope} is space-separated, RFC 8693 4.2), a number or boolean as JSON writes it.
     */
    public record ClaimRequirement(String claim, List<String> anyOf) {
        public ClaimRequirement {
            anyOf = List.copyOf(anyOf);
        }
    }

    /** A request field set from a claim ({@code sub}, or {@code realm_access.roles}: a member of an object). */
    public record ClaimHeader(String claim, String header) {}

    /**
     * Requests per client (ADR 0064; nginx's {@code limit_req ... burst=B nodelay}, ingress-nginx's
     * {@code limit-rps}): each client address may make {@code requests} every {@code per} on average, with
     * {@code burst} more at once; beyond that it gets 429 with {@code Retry-After}. Per proxy process, shared by
     * its event loops.
     *
     * @param exempt clients never limited (ingress-nginx's {@code limit-whitelist})
     */
    public record RateLimit(int requests, java.time.Duration per, int burst, List<IpBlock> exempt) {
        public RateLimit {
            exempt = List.copyOf(exempt);
        }
    }

    /**
     * Requests in flight per client (nginx's {@code limit_conn}, ingress-nginx's {@code limit-connections},
     * Traefik's InFlightReq): a client address with {@code requests} answers of this rule under way gets 429
     * for another until one ends. Per proxy process, shared by its event loops.
     *
     * @param exempt clients never limited
     */
    public record InFlightLimit(int requests, List<IpBlock> exempt) {
        public InFlightLimit {
            exempt = List.copyOf(exempt);
        }
    }

    /**
     * Cross-origin resource sharing (ADR 0065; ingress-nginx's {@code enable-cors}): a request from an allowed
     * origin gets {@code Access-Control-Allow-*} fields on its answer, and its preflight ({@code OPTIONS} with
     * {@code Access-Control-Request-Method}) is answered 204 by the proxy.
     *
     * @param allowOrigins {@code *}, or origins ({@code https://app.example.com}, {@code https://*.example.com})
     * @param maxAge       how long browsers may keep a preflight's answer
     */
    public record Cors(List<String> allowOrigins, List<String> allowMethods, List<String> allowHeaders,
                       List<String> exposeHeaders, boolean allowCredentials, java.time.Duration maxAge) {
        public static final List<String> DEFAULT_METHODS = List.of("GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS");
        public static final List<String> DEFAULT_HEADERS = List.of("DNT", "Keep-Alive", "User-Agent", "X-Requested-With",
                "If-Modified-Since", "Cache-Control", "Content-Type", "Range", "Authorization");
        public static final java.time.Duration DEFAULT_MAX_AGE = java.time.Duration.ofSeconds(1_728_000);
        private static final java.util.regex.Pattern ORIGIN = java.util.regex.Pattern.compile(
                "https?://(\\*\\.)?[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[0-9]{1,5})?");

        /** Whether {@code origin} is one an allow list may name: lower case scheme://host[:port], the host maybe {@code *.domain}. */
        public static boolean isOrigin(String origin) {
            return ORIGIN.matcher(origin).matches();
        }

        public Cors {
            allowOrigins = List.copyOf(allowOrigins);
            allowMethods = List.copyOf(allowMethods);
            allowHeaders = List.copyOf(allowHeaders);
            exposeHeaders = List.copyOf(exposeHeaders);
        }
    }

    /** All given conditions must hold. An absent path means {@code Prefix /}. */
    public record Match(PathMatch path, String method, List<HeaderMatch> headers, List<CookieMatch> cookies) {
        public Match {
            headers = List.copyOf(headers);
            cookies = List.copyOf(cookies);
        }

        /** A match without cookie conditions. */
        public Match(PathMatch path, String method, List<HeaderMatch> headers) {
            this(path, method, headers, List.of());
        }
    }

    /**
     * A cookie's exact value (ADR 0063: ingress-nginx's {@code canary-by-cookie}); the name compares exactly, as
     * browsers send it. A request without the cookie, or with it twice, does not match.
     */
    public record CookieMatch(String name, String value) {}

    /**
     * A path condition. {@code priority} orders a host's {@code RegularExpression} paths across its Routes: higher
     * first, then in the order the config lists them (Kong's {@code regex_priority}); it is 0 unless set and only
     * regex paths take it, as Exact and Prefix paths are ordered by what they match. The operator sets it so that
     * an ingress-nginx host's regex locations, from every Ingress on the host, are tried longest first (ADR 0074).
     */
    public record PathMatch(PathType type, String value, int priority) {
        public PathMatch(PathType type, String value) {
            this(type, value, 0);
        }
    }

    public enum PathType { Exact, Prefix, RegularExpression }

    /**
     * A header condition; names compare case-insensitively. {@code Exact}: the value equals {@code value};
     * {@code RegularExpression}: {@code value} is a Java regular expression the whole value must match (Envoy's
     * {@code safe_regex}, Gateway API's RegularExpression header match). A field sent on several lines is one
     * value, its lines joined by a comma.
     */
    public record HeaderMatch(String name, String value, HeaderMatchType type) {
        public HeaderMatch {
            type = type == null ? HeaderMatchType.Exact : type;
        }

        /** An exact match. */
        public HeaderMatch(String name, String value) {
            this(name, value, HeaderMatchType.Exact);
        }
    }

    public enum HeaderMatchType { Exact, RegularExpression }

    /** What a rule does: exactly one of these. */
    public sealed interface Action permits Respond, Files, Backends, Redirect {}

    /**
     * A new path, as Gateway API's HTTPPathModifier: the whole path, or the prefix that matched replaced (by
     * path element: {@code /api} matched for {@code /api/users} with {@code /v2} gives {@code /v2/users}).
     * The latter only where every match of the rule is a Prefix match. Or, in a {@code pathRewrite} only, every
     * match of a regular expression in the path replaced, as Envoy's {@code regex_rewrite} and Traefik's
     * ReplacePathRegex ({@code ReplaceRegexMatch}: {@code value} is the pattern, {@code substitution} what
     * replaces each match, see {@link PathSubstitution}).
     *
     * @param substitution with {@code ReplaceRegexMatch}, the replacement of each match; else {@code null}
     */
    public record PathModifier(PathModifierType type, String value, String substitution) {
        /** A whole path or a prefix replacement. */
        public PathModifier(PathModifierType type, String value) {
            this(type, value, null);
        }
    }

    public enum PathModifierType { ReplaceFullPath, ReplacePrefixMatch, ReplaceRegexMatch }

    /**
     * An answer that sends the client elsewhere (Gateway API's HTTPRequestRedirectFilter): each part left
     * {@code null} comes from the request; the query is always kept.
     *
     * @param scheme     {@code http} or {@code https}
     * @param hostname   a host name without port
     * @param port       1..65535; {@code null}: the new scheme's default when {@code scheme} is set, else
     *                   the port the client's Host named
     * @param path       the new path, or {@code null} for the request's
     * @param statusCode 301, 302, 303, 307 or 308
     */
    public record Redirect(String scheme, String hostname, Integer port, PathModifier path, int statusCode)
            implements Action {
        /** Gateway API's default. */
        public static final int DEFAULT_STATUS = 302;
        public static final List<Integer> STATUS_CODES = List.of(301, 302, 303, 307, 308);
    }

    /** A fixed response, pre-encoded when the table is built. */
    public record Respond(int status, String body, Map<String, String> headers) implements Action {
        public Respond {
            headers = Map.copyOf(headers);
        }
    }

    /**
     * Static files under {@code root}.
     *
     * @param followSymlinks serve symlinks that lead out of the root
     * @param dotfiles what a path with a name starting with '.' gets ({@code /.well-known/} is always served)
     * @param precompressed content codings ({@link #ENCODINGS}) whose compressed twin beside a file
     *                      ({@code app.js.br} for {@code app.js}) is sent, as it is, to a client that takes it
     *                      (nginx's {@code gzip_static}, Caddy's {@code precompressed}); in order of preference
     */
    public record Files(String root, List<String> index, boolean followSymlinks, Dotfiles dotfiles,
                        List<String> precompressed) implements Action {
        /** The codings {@code precompressed} may name, and the suffix of each one's files. */
        public static final Map<String, String> ENCODINGS = Map.of("br", ".br", "zstd", ".zst", "gzip", ".gz");

        public Files {
            index = List.copyOf(index);
            precompressed = precompressed == null ? List.of() : List.copyOf(precompressed);
        }

        public Files(String root, List<String> index, boolean followSymlinks, Dotfiles dotfiles) {
            this(root, index, followSymlinks, dotfiles, List.of());
        }

        public Files(String root, List<String> index, boolean followSymlinks) {
            this(root, index, followSymlinks, Dotfiles.IGNORE);
        }
    }

    /**
     * Files and directories whose names start with '.' ({@code .git/}, {@code .env}, {@code .htpasswd}):
     * {@code IGNORE} answers 404 as if they were not there, {@code ALLOW} serves them.
     */
    public enum Dotfiles { IGNORE, ALLOW }

    /** Weighted backends: each request goes to one of the upstreams, chosen by weight (traffic splitting). */
    public record Backends(List<Backend> backends) implements Action {
        public Backends {
            backends = List.copyOf(backends);
        }
    }

    public record Backend(String upstream, int weight) {}

    /**
     * How a request becomes a FastCGI request (see docs/config.md, "FastCGI").
     *
     * @param root            document root as the FastCGI server sees it: DOCUMENT_ROOT, and SCRIPT_FILENAME =
     *                        root + script name
     * @param index           appended to a script name ending in '/'
     * @param splitPathInfo   a regex with two groups, script name and PATH_INFO, matched against the decoded
     *                        path (nginx {@code fastcgi_split_path_info}); empty means no split
     * @param params          CGI params added to, or replacing, the ones the proxy computes
     * @param maxBufferedBody a chunked request body up to this many bytes is buffered to learn CONTENT_LENGTH;
     *                        a longer one is refused with 411
     */
    public record FastCgi(String root, String index, String splitPathInfo, Map<String, String> params,
                          long maxBufferedBody) {
        public static final String DEFAULT_INDEX = "index.php";
        public static final String DEFAULT_SPLIT_PATH_INFO = "^(.+?\\.php)(/.*)$";
        public static final long DEFAULT_MAX_BUFFERED_BODY = 1024 * 1024;

        public FastCgi {
            params = Map.copyOf(params);
        }
    }

    /**
     * The rule's response cache (RFC 9111, shared cache; see docs/config.md, "Cache").
     *
     * @param enabled              whether proxied GET and HEAD requests use the cache
     * @param maxBodySize          larger responses stream through and are not stored
     * @param defaultTtl           freshness of a cacheable response that states none (no max-age, s-maxage or
     *                             Expires); zero: such responses are not stored
     * @param ignoreCacheControl   ignore the upstream's Cache-Control, Expires and Pragma: every cacheable
     *                             status is kept for {@code defaultTtl}
     * @param cacheSetCookie       store responses that carry Set-Cookie (stored without it)
     * @param cacheAuthorization   use the cache for requests with Authorization (their answers are shared)
     * @param xCacheHeader         add {@code X-Cache: HIT|MISS|STALE|PASS|REVALIDATED|EXPIRED} to answers
     * @param staleWhileRevalidate how long past freshness a stale entry is served while one background request
     *                             revalidates it, when the response does not say
     * @param staleIfError         how long past freshness a stale entry is served when the upstream fails (5xx,
     *                             no connection), when the response does not say
     * @param hitForPass           how long a key whose response was uncacheable goes straight upstream
     * @param lockTimeout          how long requests wait for a coalesced fetch of the same key before going
     *                             upstream themselves
     */
    public record Cache(boolean enabled, long maxBodySize, Duration defaultTtl, boolean ignoreCacheControl,
                        boolean cacheSetCookie, boolean cacheAuthorization, boolean xCacheHeader,
                        Duration staleWhileRevalidate, Duration staleIfError, Duration hitForPass,
                        Duration lockTimeout) {
        public static final long DEFAULT_MAX_BODY_SIZE = 1024 * 1024;
        public static final Duration DEFAULT_HIT_FOR_PASS = Duration.ofSeconds(60);
        public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(5);

        /** The defaults, on or off. */
        public Cache(boolean enabled) {
            this(enabled, DEFAULT_MAX_BODY_SIZE, Duration.ZERO, false, false, false, false, Duration.ZERO,
                    Duration.ZERO, DEFAULT_HIT_FOR_PASS, DEFAULT_LOCK_TIMEOUT);
        }
    }

    /**
     * Proxying timeouts; {@code null} means the proxy's default (see docs/config.md).
     *
     * @param request the whole request, all tries and backoff included
     * @param perTry  one try, from sending the request to the end of the response head
     * @param idle    no bytes in either direction while a request is in flight
     */
    public record Timeouts(Duration request, Duration perTry, Duration idle) {
        public Timeouts(Duration request) {
            this(request, null, null);
        }
    }

    /**
     * Retries of a proxied request.
     *
     * @param attempts how many times a request may be tried again after the first try
     * @param retryOn  the conditions: connect-failure, refused-stream, reset, timeout, 5xx, gateway-error and
     *                 status codes; empty means connect-failure and refused-stream
     * @param backoff  the base of the exponential backoff between tries, or {@code null} for the default
     */
    public record Retries(int attempts, List<String> retryOn, Duration backoff) {
        /** The conditions {@code retryOn} accepts besides status codes. */
        public static final List<String> CONDITIONS =
                List.of("connect-failure", "refused-stream", "reset", "timeout", "5xx", "gateway-error");

        public Retries {
            retryOn = List.copyOf(retryOn);
        }

        public Retries(int attempts, List<String> retryOn) {
            this(attempts, retryOn, null);
        }
    }
}
