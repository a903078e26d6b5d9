package dev.strait.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import java.util.Map;

/**
 * A {@code routes[]} item of the config file without {@code name} (the resource's own name is used),
 * plus {@code ingressClassName} and {@code tls}. Key names and meanings are those of docs/config.md.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "has(self.rules) != has(self.tlsPassthrough)",
        message = "a Route takes either rules or tlsPassthrough (whose connections go to its backend as they are)")
// An equality with a constant: its cost does not grow with the hosts' unbounded length (see hosts).
@ValidationRule(value = "!has(self.tlsPassthrough) || !self.hosts.exists(h, h == '*')",
        message = "tlsPassthrough needs host names: a connection is passed through on the name its ClientHello"
                + " sends (SNI), so * cannot be told apart")
@ValidationRule(value = "!has(self.tlsPassthrough) || !has(self.tls)",
        message = "a Route with tlsPassthrough takes no tls: its backend ends TLS with its own certificate")
@ValidationRule(value = "!has(self.hsts) || !has(self.tlsPassthrough)",
        message = "a Route with tlsPassthrough takes no hsts: it gives no answers to add it to, its backend ends TLS")
public class RouteSpec {
    /** Which proxies serve this route; absent means the operator's default class ({@code strait}). */
    @Pattern(Patterns.NAME)
    public String ingressClassName;

    /**
     * {@code example.com}, {@code *.example.com}, or {@code *} for any host. Each name is checked by the
     * translation (reported as {@code spec.hosts[i]}), not by a CEL rule: a rule over a list of strings
     * without a length bound is refused by the API server's cost estimate.
     */
    @Required
    @Size(min = 1, max = 64)
    public List<String> hosts;

    /**
     * TLS for these hosts: a {@code kubernetes.io/tls} Secret in the Route's namespace, and whether clients of
     * these hosts must show a certificate ({@code clientValidation}).
     */
    public Tls tls;

    /**
     * The proxies' listeners that serve this Route: {@code http}, {@code https} (Gateway API's
     * {@code parentRefs[].sectionName}); absent means both. Binding a Route with a {@code redirect} to
     * {@code http} and the site's own Route to {@code https} is the ssl-redirect. A Route bound to
     * {@code https} alone is left out of a snapshot without a TLS listener (no Route of its class has TLS).
     * With {@code tls.clientValidation}, absent means {@code https} alone, and {@code http} is refused.
     */
    @Size(min = 1, max = 2)
    public List<@Pattern(Patterns.NAME) String> listeners;

    /** What the Route's requests get; required unless {@code tlsPassthrough} is given. */
    @Size(min = 1, max = 256)
    public List<Rule> rules;

    /**
     * TLS passthrough (ingress-nginx's {@code ssl-passthrough}): the https listener does not end TLS for these hosts
     * but relays each connection whose ClientHello names one of them (SNI), bytes as they are, to the backend,
     * which holds the certificate. Plain-HTTP requests for the hosts get a 308 to https. Such a Route has no
     * {@code rules} and no {@code tls}, and its hosts are names or wildcards, never {@code *}.
     */
    public TlsPassthrough tlsPassthrough;

    /**
     * HTTP Strict Transport Security (RFC 6797; ingress-nginx's {@code hsts*}): every answer of the Route's rules sent
     * over https carries {@code Strict-Transport-Security}, unless it has its own; never over plain HTTP. {@code {}}
     * for one year without subdomains. Not with {@code tlsPassthrough}.
     */
    public Hsts hsts;

    /** A Route's {@code Strict-Transport-Security}, as docs/config.md's {@code hsts}; every field optional. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    // An absent maxAgeSeconds is the parser's default, one year, which preload takes.
    @ValidationRule(value = "!has(self.preload) || !self.preload || (has(self.includeSubDomains) && self.includeSubDomains"
            + " && (!has(self.maxAgeSeconds) || self.maxAgeSeconds >= 31536000))",
            message = "preload needs includeSubDomains: true and maxAgeSeconds of at least 31536000 (one year), as the"
                    + " browsers' preload list requires")
    public static class Hsts {
        /** How long browsers remember to use https alone for the hosts; 31536000 (one year) when absent, 0: forget. */
        @Min(0)
        public Long maxAgeSeconds;
        /** The hosts' subdomains too. */
        public Boolean includeSubDomains;
        /** Consent to the browsers' preload lists (hstspreload.org); needs includeSubDomains and a year. */
        public Boolean preload;
    }

    /**
     * Where a passed-through host's connections go: an Upstream without {@code protocol}, {@code tls} or
     * {@code healthCheck} (it gets the client's TLS bytes, not HTTP), or a Service and port, whose endpoints get
     * them whatever its {@code appProtocol} says.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.upstream) != has(self.service)",
            message = "tlsPassthrough names either an upstream or a service")
    public static class TlsPassthrough {
        @Pattern(Patterns.NAME)
        public String upstream;

        public ServiceRef service;

        /**
         * A PROXY protocol header (version 1 or 2) sent to the backend ahead of the client's bytes, so that it knows
         * the client's address (Traefik's {@code proxyProtocol.version}); the backend must expect it.
         */
        @Min(1)
        @Max(2)
        public Integer proxyProtocol;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Tls {
        @Required
        @Pattern(Patterns.NAME)
        public String secretName;

        /**
         * Client certificates for these hosts (nginx's {@code ssl_verify_client}, ingress-nginx's {@code auth-tls-*}):
         * a TLS handshake for one of them asks for a certificate, and each request is checked. Such a Route is served
         * on the {@code https} listener only; until its CA Secret resolves, its rules answer 503.
         */
        public ClientValidation clientValidation;
    }

    /** Which client certificates a Route's hosts take, and what the proxy does with them. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.caSecretName) || (has(self.mode) && self.mode == 'optional-no-ca')",
            message = "clientValidation needs caSecretName, the CAs that issue client certificates, unless mode is"
                    + " optional-no-ca")
    @ValidationRule(value = "!has(self.ocsp) || self.ocsp == 'off' || has(self.caSecretName)",
            message = "clientValidation.ocsp asks the CAs of caSecretName about certificates they issued: give it too")
    @ValidationRule(value = "!has(self.ocspResponder) || (has(self.ocsp) && self.ocsp != 'off')",
            message = "clientValidation.ocspResponder is asked only with ocsp: leaf or chain")
    public static class ClientValidation {
        /**
         * A Secret in the Route's namespace (or {@code caSecretNamespace}'s) whose {@code ca.crt} holds the CA
         * certificates (PEM): {@code Opaque}, or
         * {@code kubernetes.io/tls} as cert-manager writes a CA's (the operator watches those two types).
         */
        @Pattern(Patterns.NAME)
        public String caSecretName;

        /** Another namespace's CA Secret, which must accept references from the Route's (ADR 0078). */
        @Pattern(Patterns.NAME)
        public String caSecretNamespace;

        /**
         * {@code require} (the default): a request without a valid certificate gets 400; {@code optional}: none is
         * fine, an invalid one gets 400; {@code optional-no-ca}: any certificate or none, the verdict goes upstream.
         */
        public ClientValidationMode mode;

        /** 1 (the default): issued by one of the CAs directly; each more allows one intermediate CA more. */
        @Min(1)
        @Max(10)
        public Integer verifyDepth;

        /**
         * A Java regular expression searched in the certificate's subject (RFC 2253, {@code CN=client1,O=Example});
         * a request whose certificate's subject has no match gets 403.
         */
        @Size(min = 1, max = 4096)
        public String subjectMatch;

        /** {@code true}: the certificate goes upstream too, URL-escaped PEM in {@code ssl-client-cert}. */
        public Boolean forwardCertificate;

        /** Where a refused request is sent (302) instead of answered 400 or 403: an http(s) URL or a path. */
        @Pattern("^(https?://|/[^/])[!-~]*$")
        @Size(max = 2048)
        public String errorPage;

        /**
         * Which certificates of a valid chain are asked about by OCSP, as nginx's {@code ssl_ocsp}: {@code off} (the
         * default), {@code leaf} (the client's own), {@code chain} (each one up to the CA). A revoked, unknown or
         * unanswered one gets 400.
         */
        public ClientOcsp ocsp;

        /** The OCSP responder asked instead of the one each certificate names (nginx's {@code ssl_ocsp_responder}). */
        @Pattern("^https?://[!-~]+$")
        @Size(max = 2048)
        public String ocspResponder;
    }

    public enum ClientOcsp {
        @JsonProperty("off") OFF,
        @JsonProperty("leaf") LEAF,
        @JsonProperty("chain") CHAIN
    }

    public enum ClientValidationMode {
        @JsonProperty("require") REQUIRE,
        @JsonProperty("optional") OPTIONAL,
        @JsonProperty("optional-no-ca") OPTIONAL_NO_CA
    }

    /** When any of its matches fits, its single action answers. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "(has(self.respond) ? 1 : 0) + (has(self.files) ? 1 : 0) + (has(self.backends) ? 1 : 0)"
            + " + (has(self.redirect) ? 1 : 0) == 1",
            message = "a rule takes exactly one action: respond, files, backends or redirect")
    @ValidationRule(value = "!has(self.pathRewrite) || has(self.backends)",
            message = "pathRewrite only applies to a rule with backends")
    @ValidationRule(value = "!has(self.responseRewrite) || has(self.backends)",
            message = "responseRewrite only applies to a rule with backends")
    @ValidationRule(value = "!has(self.responseRewrite) || !has(self.fastcgi)",
            message = "responseRewrite applies to HTTP upstreams' answers, not to FastCGI's")
    @ValidationRule(value = "!has(self.requestBuffering) || has(self.backends)",
            message = "requestBuffering only applies to a rule with backends")
    @ValidationRule(value = "!has(self.requestBuffering) || !has(self.fastcgi)",
            message = "requestBuffering does not apply to FastCGI: its bodies are always read first, up to"
                    + " fastcgi.maxBufferedBody")
    @ValidationRule(value = "!has(self.responseRate) || has(self.backends)",
            message = "responseRate only applies to a rule with backends")
    @ValidationRule(value = "!has(self.compression) || !has(self.redirect)",
            message = "compression does not apply to a redirect: its answer has no body to compress")
    @ValidationRule(value = "!has(self.jwtAuth) || !has(self.basicAuth)",
            message = "jwtAuth and basicAuth both read the Authorization field: a rule takes one of them")
    @ValidationRule(value = "!has(self.satisfy) || self.satisfy == 'all' || (has(self.clientAddresses) && has(self.basicAuth))",
            message = "satisfy: any chooses between clientAddresses and basicAuth; the rule needs both")
    public static class Rule {
        @Size(min = 1, max = 64)
        public List<Match> matches;

        public Respond respond;

        public Files files;

        @Size(min = 1, max = 64)
        public List<Backend> backends;

        public Cache cache;

        public Timeouts timeouts;

        public Retries retries;

        /** Sends the client elsewhere (Gateway API's RequestRedirect); no upstream is asked. */
        public Redirect redirect;

        /** The Host sent upstream (a name or address, optional {@code :port}); only with backends. */
        @Pattern(Patterns.HOST_VALUE)
        public String hostRewrite;

        /**
         * The path sent upstream (Gateway API's URLRewrite, or every match of a regular expression replaced);
         * only with backends, not fastcgi ones. {@code replacePrefixMatch} needs every match of the rule to be a
         * Prefix match.
         */
        public PathRewrite pathRewrite;

        /** How requests become FastCGI calls, for backends whose Upstream speaks {@code fastcgi}. */
        public FastCgi fastcgi;

        /**
         * Which clients the rule answers: 403 for one in {@code deny}, or outside a non-empty {@code allow}
         * (nginx's allow and deny). The client is the peer, or the one a trusted load balancer names.
         */
        public ClientAddresses clientAddresses;

        /**
         * HTTP Basic authentication: 401 until a user of the Secret's htpasswd lines logs in. Until the Secret
         * resolves to at least one user, the rule answers 503, never unauthenticated.
         */
        public BasicAuth basicAuth;

        /**
         * JSON Web Tokens: 401 unless the request carries one signed by the provider's keys, current, from its
         * issuer and for one of the audiences (docs/config.md, JSON Web Tokens).
         */
        public JwtAuth jwtAuth;

        /** Requests per client address: 429 beyond {@code requests} every {@code per} plus {@code burst}. */
        public RateLimit rateLimit;

        /** Cross-origin resource sharing, as docs/config.md's {@code cors}. */
        public Cors cors;

        /**
         * Request body bytes the rule takes before 413, instead of the proxy's {@code limits.maxBodyBytes}
         * (nginx's {@code client_max_body_size} in a location).
         */
        @Min(0)
        public Long maxBodyBytes;

        /** Requests per client under way at once: 429 for one more (nginx's limit_conn). */
        public InFlightLimit inFlightLimit;

        /** Fields of the request changed before the action sees it (Gateway API's RequestHeaderModifier). */
        public HeaderEdits requestHeaders;

        /** Fields of every answer the action gives changed (Gateway API's ResponseHeaderModifier). */
        public HeaderEdits responseHeaders;

        /**
         * With both {@code clientAddresses} and {@code basicAuth}: {@code all} (the default) asks both;
         * {@code any} admits a client the addresses allow without credentials and asks the others for them
         * (nginx's {@code satisfy}).
         */
        public Satisfy satisfy;

        /**
         * Answers with these statuses, the action's or the proxy's own, are replaced by a page that
         * {@code backend} serves, sent with the original status (nginx's {@code error_page}, ingress-nginx's
         * {@code custom-http-errors}).
         */
        public ErrorPages errorPages;

        /** {@code false}: the rule's requests are not written to the access log (health checks, say). */
        public Boolean accessLog;

        /**
         * {@code false}: the rule's requests are not traced while the proxies trace (no span; a client's
         * {@code traceparent} goes upstream as sent).
         */
        public Boolean tracing;

        /**
         * Before the action sees a request, {@code backend} is asked whether it may pass (nginx's
         * {@code auth_request}, Traefik's ForwardAuth, ingress-nginx's {@code auth-url}): a 2xx lets it through,
         * anything else is the client's answer. Until the backend resolves, the rule answers 503, never unchecked.
         * Without a backend, {@code path} is asked of this host through the proxy's own routes.
         */
        public ForwardAuth forwardAuth;

        /**
         * Copies of the requests the action serves (all, or each mirror's {@code percent} of them) go to each
         * mirror's backend too, and its answers are dropped: the client never waits for a mirror (nginx's
         * {@code mirror}, ingress-nginx's {@code mirror-target}, Gateway API's RequestMirror). A mirror whose backend
         * does not resolve is left out and reported; the rule serves as it would without it.
         */
        @Size(min = 1, max = 16)
        public List<Mirror> mirrors;

        /**
         * What changes in the answers of the backends, for an app that does not know the URL it is served under
         * (behind a {@code pathRewrite} or {@code hostRewrite}): its redirects ({@code Location}, {@code Refresh}) and
         * its cookies' {@code Path} and {@code Domain} (nginx's {@code proxy_redirect}, {@code proxy_cookie_path} and
         * {@code proxy_cookie_domain}). Only with backends, not fastcgi ones.
         */
        public ResponseRewrite responseRewrite;

        /**
         * The request body is read, up to {@code maxBytes} in memory, before a backend is asked (nginx's
         * {@code proxy_request_buffering}), so a slow upload never holds one of the app's workers; the rest of a
         * longer body streams from there. Absent, the body streams as it comes. Only with backends, not fastcgi ones.
         */
        public RequestBuffering requestBuffering;

        /**
         * How fast each answer's body goes to the client (nginx's {@code limit_rate}, {@code limit_rate_after}): the
         * first {@code afterBytes} at once, the rest at {@code bytesPerSecond}, per request. Only with backends.
         */
        public ResponseRate responseRate;

        /**
         * The answers of the rule's types go compressed to clients that take it (nginx's {@code gzip} and
         * {@code brotli}), in zstd or gzip unless {@code codings} says otherwise; {@code {}} for the defaults. Any
         * action but a redirect.
         */
        public Compression compression;
    }

    /** A rule's compression of its answers, as docs/config.md's {@code compression}; every field optional. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Compression {
        /**
         * Media types ({@code text/html}) or whole top-level types ({@code text/*}) compressed, matched against
         * {@code Content-Type} without its parameters (any case); the text formats of the web when absent.
         */
        @Size(min = 1)
        public List<@Pattern(Patterns.MEDIA_RANGE) String> types;
        /** A body known to be shorter goes as it is; 1024 when absent. */
        @Min(0)
        public Long minBytes;
        /** 1 (fastest, the default) to 9 (smallest), each coding at that level of its own scale. */
        @Min(1)
        @Max(9)
        public Integer level;
        /**
         * The codings answered in: the first the client's {@code Accept-Encoding} takes, its weights first and this
         * order on a tie; zstd then gzip when absent. Bounded so the API server can cost the uniqueness rule.
         */
        @Size(min = 1, max = 3)
        @ValidationRule(value = "self.all(c, self.filter(d, d == c).size() == 1)", message = "names a coding twice")
        public List<Coding> codings;
    }

    /** A content coding a rule's answers may be compressed in (the model's {@code Route.Compression.CODINGS}). */
    public enum Coding {
        @JsonProperty("zstd") ZSTD,
        @JsonProperty("br") BR,
        @JsonProperty("gzip") GZIP;

        /** The model's names ({@code zstd}, {@code br}, {@code gzip}) as codings. */
        public static List<Coding> of(List<String> names) {
            return names.stream().map(n -> valueOf(n.toUpperCase(java.util.Locale.ROOT))).toList();
        }
    }

    /** A rule's pace for its answers, as docs/config.md's {@code responseRate}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ResponseRate {
        /** Bytes a second once {@code afterBytes} are out; at least 1. */
        @Required
        @Min(1)
        public Long bytesPerSecond;
        /** Bytes sent at once before the rate applies; 0 when absent. */
        @Min(0)
        public Long afterBytes;
    }

    /**
     * How much of a request body is read before the backend is asked, and how much of that is held in memory (the
     * rest goes to a file of the proxy's {@code requestBodyFiles}), as docs/config.md's {@code requestBuffering}.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.memoryBytes) || self.memoryBytes <= (has(self.maxBytes) ? self.maxBytes : 1048576)",
            message = "memoryBytes cannot be more than maxBytes (1048576 when absent): it is the part of them held in"
                    + " memory")
    public static class RequestBuffering {
        /** Bytes read before the backend is asked, 1 MiB when absent; up to 1 TiB. */
        @Min(1)
        @Max(1099511627776L)
        public Long maxBytes;
        /**
         * Bytes of them held in memory, the rest in a file; 1 MiB (or {@code maxBytes} if less) when absent; up to
         * 64 MiB.
         */
        @Min(0)
        @Max(67108864)
        public Long memoryBytes;
    }

    /**
     * A rule's rewrites of its backends' answers, as docs/config.md's {@code responseRewrite}; in each list the first
     * entry that matches applies. {@code {host}} in a {@code to} stands for the request's host (without port),
     * {@code {scheme}} for the scheme the client used.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.location) || has(self.cookiePath) || has(self.cookieDomain)",
            message = "responseRewrite needs location, cookiePath or cookieDomain")
    public static class ResponseRewrite {
        /** {@code Location}, and the URL of {@code Refresh}: one starting with {@code from} has that start replaced. */
        @Size(min = 1, max = 16)
        public List<Replace> location;

        /** Each {@code Set-Cookie}'s {@code Path}: one starting with {@code from} has that start replaced. */
        @Size(min = 1, max = 16)
        public List<CookieReplace> cookiePath;

        /** Each {@code Set-Cookie}'s {@code Domain}: one equal to {@code from} (any case, a leading dot aside) is replaced. */
        @Size(min = 1, max = 16)
        public List<CookieReplace> cookieDomain;
    }

    /** A replacement in a URL: visible ASCII without spaces, as the model's. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Replace {
        @Required
        @Pattern(Patterns.URL_PART)
        @Size(max = 2048)
        public String from;

        @Required
        @Pattern(Patterns.URL_PART)
        @Size(max = 2048)
        public String to;
    }

    /** A replacement in a cookie attribute: visible ASCII without spaces or {@code ;}, as the model's. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class CookieReplace {
        @Required
        @Pattern(Patterns.COOKIE_VALUE)
        @Size(max = 1024)
        public String from;

        @Required
        @Pattern(Patterns.COOKIE_VALUE)
        @Size(max = 1024)
        public String to;
    }

    /** Where a rule's requests are copied to, and how many of them. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.backend) || !has(self.backend.weight)",
            message = "a mirror's backend takes no weight: percent is its share of the requests")
    // The proxy sets an affinity cookie on the answers of the upstream; a mirror's answers never reach the client.
    @ValidationRule(value = "!has(self.backend) || !has(self.backend.sessionAffinity)",
            message = "a mirror's answers are dropped, so its backend takes no sessionAffinity")
    public static class Mirror {
        /** An Upstream (not fastcgi), or a Service and port (with the Service backend's settings). */
        @Required
        public Backend backend;

        /** The share of the requests copied, over 0 and at most 100 ({@code 12.5} allowed); default 100. */
        @Min(value = 0, inclusive = false)
        @Max(100)
        public Double percent;

        /** The Host the copies carry (a name or address, optional {@code :port}); absent: the client's. */
        @Pattern(Patterns.HOST_VALUE)
        public String hostRewrite;

        /** {@code false}: copies go without the request's body; default {@code true}. */
        public Boolean body;
    }

    /** A rule's forward authentication: {@code GET path} on the backend with the request's fields, no body. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.path) || self.path.startsWith('/')",
            message = "forwardAuth.path must start with /")
    // Asked of the host itself, the default / would be the site's own root page: a 2xx there lets everyone in.
    @ValidationRule(value = "has(self.backend) || has(self.path)",
            message = "forwardAuth without a backend needs the path it asks of the request's host")
    @ValidationRule(value = "!has(self.signIn) || self.signIn.startsWith('https://') || self.signIn.startsWith('http://')"
            + " || (self.signIn.startsWith('/') && !self.signIn.startsWith('//'))",
            message = "forwardAuth.signIn must be an http(s) URL or a path starting with /")
    public static class ForwardAuth {
        /**
         * An Upstream, or a Service and port (with the Service backend's settings), spoken to over HTTP. Without it
         * the check is a request for {@code path} on the request's own host, routed by the proxy's routes as any
         * (nginx's {@code auth_request} to a location; ingress-nginx's {@code auth-url: https://$host/oauth2/auth}
         * with another Ingress routing {@code /oauth2} to oauth2-proxy).
         */
        public Backend backend;

        /** The check's path and query on the backend ({@code /oauth2/auth}); default {@code /} with a backend. */
        @Pattern("^[!-\"$-~]*$")
        @Size(max = 1024)
        public String path;

        /** Fields of a 2xx answer the request takes on (its own copies dropped first), e.g. {@code X-Auth-Request-User}. */
        @Size(max = 64)
        public List<@Pattern(Patterns.TOKEN) String> responseHeaders;

        /**
         * Where a 401 sends the client (302): an http(s) URL or a path. {@code {url}} in it stands for the request's
         * whole URL, escaped, {@code {uri}} for its path and query; without either {@code rd={url}} is added.
         */
        @Pattern("^[!-~]*$")
        @Size(max = 2048)
        public String signIn;

        /** The check's {@code Set-Cookie} goes out with every answer, errors too (default: below 400 only). */
        public Boolean alwaysSetCookie;

        /** How long a yes is kept for the credentials it was given for; absent: every request is asked. */
        public AuthCache cache;
    }

    /**
     * A forward-auth yes kept for {@code duration} (at most 24h) under the values of these request fields and
     * cookies; refusals and yeses that set cookies are never kept.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "(has(self.headers) && size(self.headers) > 0) || (has(self.cookies) && size(self.cookies) > 0)",
            message = "a cache needs headers or cookies that say who the client is")
    public static class AuthCache {
        @Size(max = 16)
        public List<@Pattern(Patterns.TOKEN) String> headers;

        @Size(max = 16)
        public List<@Pattern(Patterns.TOKEN) String> cookies;

        /** A duration such as {@code 30s}, {@code 5m} or {@code 1h}. */
        @Required
        @Pattern("^[0-9]+(ms|s|m|h)$")
        public String duration;
    }

    /** A rule's error pages: {@code GET path} from the backend (ingress-nginx's X-Code and friends sent along). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "self.statuses.all(s, s >= 400 && s <= 599)",
            message = "errorPages replace answers with statuses 400 to 599")
    public static class ErrorPages {
        @Required
        @Size(min = 1, max = 100)
        public List<Integer> statuses;

        /** An Upstream, or a Service and port (with the Service backend's settings). */
        @Required
        public Backend backend;

        /** The page's path, {@code {status}} standing for the status; default {@code /}. */
        @Pattern("^/[^ #]*$")
        @Size(max = 1024)
        public String path;
    }

    public enum Satisfy {
        @JsonProperty("all") ALL,
        @JsonProperty("any") ANY
    }

    /** As docs/config.md's {@code requestHeaders}: remove, then set, then add; names case-insensitive. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class HeaderEdits {
        public Map<String, String> set;

        public Map<String, String> add;

        @Size(max = 64)
        public List<@Pattern(Patterns.TOKEN) String> remove;
    }

    /** As docs/config.md's {@code cors}; ingress-nginx's defaults where a field is absent. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Cors {
        @Size(max = 64)
        public List<@Size(min = 1, max = 256) String> allowOrigins;

        @Size(max = 32)
        public List<@Pattern(Patterns.TOKEN) String> allowMethods;

        @Size(max = 64)
        public List<@Pattern(Patterns.TOKEN) String> allowHeaders;

        @Size(max = 64)
        public List<@Pattern(Patterns.TOKEN) String> exposeHeaders;

        public Boolean allowCredentials;

        @Pattern(Patterns.DURATION)
        public String maxAge;
    }

    /** As docs/config.md's {@code inFlightLimit}: per client, per proxy. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class InFlightLimit {
        @Required
        @Min(1)
        @Max(100000)
        public Integer requests;

        /** Addresses and CIDR blocks never limited. */
        @Size(max = 256)
        public List<@Size(min = 1, max = 64) String> exempt;
    }

    /** As docs/config.md's {@code rateLimit}: per client, per proxy. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class RateLimit {
        @Required
        @Min(1)
        @Max(1000000)
        public Integer requests;

        /** {@code 1s} when absent; at most {@code 24h}. */
        @Pattern(Patterns.DURATION)
        public String per;

        @Min(0)
        @Max(1000)
        public Integer burst;

        /** Addresses and CIDR blocks never limited. */
        @Size(max = 256)
        public List<@Size(min = 1, max = 64) String> exempt;
    }

    /** A rule's JSON Web Token check (ADR 0108): the provider's keys, and what its tokens must say. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.jwksUri) || has(self.jwks) || has(self.issuer)",
            message = "jwtAuth needs the keys that sign tokens: jwksUri (the identity provider's jwks_uri), jwks, or an"
                    + " issuer URL whose OpenID discovery names them")
    @ValidationRule(value = "!(has(self.jwksUri) && has(self.jwks))",
            message = "jwtAuth.jwks and jwksUri both give the keys: one of them")
    @ValidationRule(value = "!has(self.refresh) || !has(self.jwks)",
            message = "jwtAuth.refresh is how often the keys are fetched: with jwks there is nothing to fetch")
    public static class JwtAuth {
        /**
         * The identity provider's {@code jwks_uri}, http or https: fetched when first needed, then every refresh.
         * Without it or jwks, the issuer's OpenID discovery document names it.
         */
        @Pattern("^https?://[!-~]+$")
        @Size(max = 2048)
        public String jwksUri;

        /** The keys as a JWK Set, JSON (public keys: no Secret needed). */
        @Size(max = 65536)
        public String jwks;

        /** How often jwksUri is fetched again, e.g. {@code 10m} (the default); 30s at least. */
        @Pattern("^[0-9]+(ms|s|m|h)$")
        public String refresh;

        /** The {@code iss} tokens must have. */
        @Size(max = 2048)
        public String issuer;

        /** Values of which a token's {@code aud} must hold one. */
        @Size(max = 64)
        public List<@Size(min = 1, max = 512) String> audiences;

        /** {@code true}: a request without a token passes (a bad one never). */
        public Boolean optional;

        /** A cookie a token is read from when the request has no {@code Authorization: Bearer}. */
        @Pattern("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
        public String cookie;

        /** Request fields set from claims for the app: claim name (dots into objects) to field name. */
        public Map<String, String> claimHeaders;

        /**
         * Claims a token must hold one of the listed values in, each ({@code scope: [ orders:read ]}); else 403,
         * {@code insufficient_scope}.
         */
        public Map<String, List<@Size(min = 1, max = 256) String>> require;

        /** Named in the challenge; {@code strait} when absent. */
        @Size(max = 256)
        @Pattern("^[ -!#-\\[\\]-~]*$")
        public String realm;
    }

    /** The users are the Secret's {@code auth} key: {@code name:hash} lines, as {@code htpasswd} writes them. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class BasicAuth {
        /** Shown by browsers in their prompt; {@code Restricted} when absent. */
        @Size(max = 256)
        @Pattern("^[ -!#-\\[\\]-~]*$")
        public String realm;

        /**
         * A Secret in the Route's namespace (or {@code secretNamespace}'s): htpasswd lines in its key {@code auth}, or
         * as {@code secretType} says.
         */
        @Required
        @Pattern(Patterns.NAME)
        public String secretName;

        /** Another namespace's Secret, which must accept references from the Route's (ADR 0078). */
        @Pattern(Patterns.NAME)
        public String secretNamespace;

        /**
         * How the Secret holds the users (ingress-nginx's {@code auth-secret-type}): {@code auth-file} (the
         * default), htpasswd lines in the key {@code auth}; {@code auth-map}, one key per user whose value is
         * the password's hash.
         */
        public SecretType secretType;
    }

    public enum SecretType {
        @JsonProperty("auth-file") AUTH_FILE,
        @JsonProperty("auth-map") AUTH_MAP
    }

    /** Addresses and CIDR blocks ({@code 10.0.0.0/8}, {@code 2001:db8::/32}); at least one in either list. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "(has(self.allow) && size(self.allow) > 0) || (has(self.deny) && size(self.deny) > 0)",
            message = "clientAddresses names no addresses: give allow, deny or both")
    public static class ClientAddresses {
        @Size(max = 256)
        public List<@Size(min = 1, max = 64) String> allow;

        @Size(max = 256)
        public List<@Size(min = 1, max = 64) String> deny;
    }

    /** All given conditions must hold; an absent path means {@code Prefix /}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Match {
        public PathMatch path;

        @Pattern(Patterns.TOKEN)
        public String method;

        @Size(max = 16)
        public List<HeaderMatch> headers;

        @Size(max = 8)
        public List<CookieMatch> cookies;
    }

    /** A cookie's exact value; a request with the cookie twice does not match. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class CookieMatch {
        @Required
        @Pattern(Patterns.TOKEN)
        public String name;

        @Required
        @Pattern("^[!#-+\\--:<-\\[\\]-~]*$")
        public String value;
    }

    /**
     * A path condition; {@code priority} orders a host's RegularExpression paths across its Routes, higher first
     * (0 unless given; ties keep the Routes' order).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "(has(self.type) && self.type == 'RegularExpression') || self.value.startsWith('/')",
            message = "an Exact or Prefix path must start with /")
    @ValidationRule(value = "!has(self.priority) || self.priority == 0 || (has(self.type) && self.type == 'RegularExpression')",
            message = "priority orders RegularExpression paths only")
    public static class PathMatch {
        public PathType type;

        @Required
        @Size(min = 1, max = 4096)
        public String value;

        @Min(-1000000)
        @Max(1000000)
        public Integer priority;
    }

    public enum PathType { Exact, Prefix, RegularExpression }

    /**
     * A header condition; names compare case-insensitively. {@code Exact} (the default) or
     * {@code RegularExpression}: a Java regular expression the whole value must match.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class HeaderMatch {
        @Required
        @Pattern(Patterns.TOKEN)
        public String name;

        @Required
        public String value;

        public HeaderMatchType type;
    }

    public enum HeaderMatchType { Exact, RegularExpression }

    /** A fixed response. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Respond {
        @Min(200)
        @Max(599)
        public Integer status;

        @Size(max = 65536)
        public String body;

        public Map<String, String> headers;
    }

    /**
     * Where a redirect sends the client; each part left out is the request's, and the query is always kept.
     * Without {@code port}, a new {@code scheme} takes its default port, else the port of the request's Host stays.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.statusCode) || self.statusCode in [301, 302, 303, 307, 308]",
            message = "statusCode must be 301, 302, 303, 307 or 308")
    public static class Redirect {
        public Scheme scheme;

        /** A host name in lower case, without port. */
        @Pattern(Patterns.LOWER_HOST_NAME)
        public String hostname;

        @Min(1)
        @Max(65535)
        public Integer port;

        public PathModifier path;

        /** 301, 302 (the default), 303, 307 or 308. */
        public Integer statusCode;
    }

    public enum Scheme {
        @JsonProperty("http") HTTP,
        @JsonProperty("https") HTTPS
    }

    /** A redirect's new path: exactly one of the two. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.replaceFullPath) != has(self.replacePrefixMatch)",
            message = "takes exactly one of replaceFullPath and replacePrefixMatch")
    public static class PathModifier {
        /** The whole path, e.g. {@code /index.html}. */
        @Pattern("^/")
        @Size(max = 4096)
        public String replaceFullPath;

        /** Replaces the Prefix match that chose the rule, by path element: {@code /api} with {@code /v2}. */
        @Pattern("^/")
        @Size(max = 4096)
        public String replacePrefixMatch;
    }

    /** The path sent upstream: exactly one of the three. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "(has(self.replaceFullPath) ? 1 : 0) + (has(self.replacePrefixMatch) ? 1 : 0)"
            + " + (has(self.replaceRegexMatch) ? 1 : 0) == 1",
            message = "takes exactly one of replaceFullPath, replacePrefixMatch and replaceRegexMatch")
    public static class PathRewrite {
        /** The whole path, e.g. {@code /index.html}. */
        @Pattern("^/")
        @Size(max = 4096)
        public String replaceFullPath;

        /** Replaces the Prefix match that chose the rule, by path element: {@code /api} with {@code /v2}. */
        @Pattern("^/")
        @Size(max = 4096)
        public String replacePrefixMatch;

        /** Replaces every match of a regular expression in the path (Envoy's regex_rewrite). */
        public RegexRewrite replaceRegexMatch;
    }

    /** Every match of {@code pattern} in the path (Java syntax, never the query) replaced by {@code substitution}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class RegexRewrite {
        /** E.g. {@code ^/api/v[0-9]+/(.*)}. */
        @Required
        @Size(min = 1, max = 4096)
        public String pattern;

        /** E.g. {@code /$1}: {@code $1}..{@code $9} or {@code ${12}} for a group, {@code $$} for a dollar sign. */
        @Required
        @Size(max = 4096)
        public String substitution;
    }

    /** Static files under {@code root} on the proxy's file system. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Files {
        @Required
        @Size(min = 1)
        public String root;

        public List<String> index;

        public Boolean followSymlinks;

        /** {@code ignore} (the default): names starting with '.' get 404, except /.well-known/; {@code allow} serves them. */
        public Dotfiles dotfiles;

        /**
         * Content codings ({@code br}, {@code zstd}, {@code gzip}) whose twin beside a file ({@code app.js.br}) is
         * sent, as it is, to a client that takes the coding; in order of preference (docs/config.md, "Precompressed
         * twins").
         */
        @Size(max = 3)
        @ValidationRule(value = "self.all(c, self.filter(d, d == c).size() == 1)", message = "names a coding twice")
        public List<@Pattern("^(br|zstd|gzip)$") String> precompressed;
    }

    public enum ServiceProtocol {
        @JsonProperty("http1") HTTP1,
        @JsonProperty("h2c") H2C,
        @JsonProperty("https") HTTPS,
        @JsonProperty("h2") H2
    }

    public enum Dotfiles {
        @JsonProperty("ignore") IGNORE,
        @JsonProperty("allow") ALLOW
    }

    /** An Upstream in the Route's namespace, or a Service and port there (an upstream is made for it). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.upstream) != has(self.service)",
            message = "a backend names either an upstream or a service")
    @ValidationRule(value = "!has(self.protocol) || has(self.service)",
            message = "protocol applies to a service backend (an Upstream has its own)")
    @ValidationRule(value = "!has(self.sessionAffinity) || has(self.service)",
            message = "sessionAffinity applies to a service backend (an Upstream has its own hashOn)")
    @ValidationRule(value = "!(has(self.loadBalancer) || has(self.hashOn) || has(self.connectTimeout) || has(self.useClusterIP))"
            + " || has(self.service)",
            message = "loadBalancer, hashOn, connectTimeout and useClusterIP apply to a service backend (an Upstream has its own)")
    @ValidationRule(value = "!has(self.sessionAffinity) || !(has(self.loadBalancer) || has(self.hashOn))",
            message = "sessionAffinity is a consistent hash of its own; it takes no loadBalancer or hashOn")
    @ValidationRule(value = "!has(self.hashOn) || !has(self.loadBalancer) || self.loadBalancer == 'consistent-hash'",
            message = "hashOn applies to the consistent-hash load balancer")
    public static class Backend {
        @Pattern(Patterns.NAME)
        public String upstream;

        public ServiceRef service;

        /**
         * How the Service's endpoints are spoken to: {@code http1} (the default), {@code h2c} (HTTP/2 in the
         * clear, gRPC), {@code https} and {@code h2} (HTTP/1.1 and HTTP/2 over TLS whose certificate is not
         * checked, as ingress-nginx's backend-protocol HTTPS and GRPCS; an Upstream with {@code tls} checks it).
         */
        public ServiceProtocol protocol;

        /**
         * Sticky sessions to a Service's endpoints: the proxy hands a browser without the cookie a random key in
         * it (or, with {@code mode: persistent}, the name of the endpoint that served it), and sends the requests
         * that bring it back to the same endpoint (an upstream's consistent hash on the cookie with
         * {@code setCookie}; ingress-nginx's {@code affinity: cookie}).
         */
        public SessionAffinity sessionAffinity;

        /**
         * How requests spread over the Service's endpoints: {@code round-robin} (the default),
         * {@code least-request} or {@code consistent-hash} (on {@code hashOn}; ingress-nginx's
         * {@code load-balance} and {@code upstream-hash-by}).
         */
        public UpstreamSpec.LoadBalancer loadBalancer;

        /** What the consistent hash hashes (the client's address when absent); implies {@code consistent-hash}. */
        public UpstreamSpec.HashOn hashOn;

        /** Time to establish a connection to an endpoint (default 5s; ingress-nginx's {@code proxy-connect-timeout}). */
        @Pattern(Patterns.DURATION)
        public String connectTimeout;

        /**
         * {@code true}: requests go to the Service's cluster IP, where kube-proxy or a mesh (Linkerd) picks the
         * pod, instead of to its ready endpoints (ingress-nginx's {@code service-upstream}). The proxy then sees
         * one endpoint, so its balancing and health checks have nothing to choose from.
         */
        public Boolean useClusterIP;

        @Min(0)
        @Max(1000000)
        public Integer weight;
    }

    /**
     * A Service backend's affinity cookie: its name, {@code Path} (default {@code /}), {@code Max-Age},
     * {@code SameSite}, {@code Domain}, whether it is always {@code Secure}, and whether it names the endpoint
     * ({@code mode}).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class SessionAffinity {
        @Required
        @Size(max = 128)
        @Pattern(Patterns.TOKEN)
        public String cookieName;

        @Pattern(Patterns.COOKIE_PATH)
        public String path;

        /** Absent: a session cookie, gone when the browser closes. */
        @Pattern(Patterns.DURATION)
        public String maxAge;

        /** The cookie's {@code SameSite}: {@code Strict}, {@code Lax} or {@code None} (sent on https only). */
        @Pattern("^(Strict|Lax|None)$")
        public String sameSite;

        /** A browser served elsewhere because its endpoint failed gets a cookie for where it was served. */
        public Boolean changeOnFailure;

        /**
         * The cookie's {@code Domain}, so that it reaches the subdomains too: a host name, a leading dot allowed,
         * not an IP address. Absent: the cookie goes back to the host that set it only.
         */
        @Size(max = 254)
        @Pattern(Patterns.COOKIE_DOMAIN)
        public String domain;

        /**
         * {@code true}: the cookie is {@code Secure} (and {@code SameSite=None} goes with it) also when the request
         * came over plain http, as behind a load balancer that ended TLS but is not a trusted peer. Absent or
         * false: {@code Secure} on https only.
         */
        public Boolean secure;

        /**
         * {@code balanced} (absent means this): the cookie holds a random key on the consistent-hash ring, so about
         * 1/n of the browsers move when endpoints come or go. {@code persistent}: the cookie names the endpoint that
         * served the browser, and the browser stays there while that endpoint is in the upstream, through
         * scale-ups; a cookie naming an endpoint that is gone gets a new one (ingress-nginx's {@code affinity-mode}).
         */
        @Pattern("^(balanced|persistent)$")
        public String mode;
    }

    /** The rule's response cache; keys and defaults as in docs/config.md ("Cache"). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Cache {
        public Boolean enabled;

        @Min(0)
        @Max(2147482623)
        public Long maxBodySize;

        @Pattern(Patterns.DURATION)
        public String defaultTtl;

        public Boolean ignoreCacheControl;

        public Boolean cacheSetCookie;

        public Boolean cacheAuthorization;

        public Boolean xCacheHeader;

        @Pattern(Patterns.DURATION)
        public String staleWhileRevalidate;

        @Pattern(Patterns.DURATION)
        public String staleIfError;

        @Pattern(Patterns.DURATION)
        public String hitForPass;

        @Pattern(Patterns.DURATION)
        public String lockTimeout;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Timeouts {
        /** The whole exchange, retries included. */
        @Pattern(Patterns.DURATION)
        public String request;

        /** One attempt at one endpoint, until the response head arrives. */
        @Pattern(Patterns.DURATION)
        public String perTry;

        /** Longest silence on an open exchange, either way. */
        @Pattern(Patterns.DURATION)
        public String idle;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Retries {
        @Min(0)
        @Max(10)
        public Integer attempts;

        /** {@code connect-failure}, {@code refused-stream}, {@code reset}, {@code timeout}, {@code 5xx}, {@code gateway-error} or a status code. */
        @Size(max = 16)
        public List<String> retryOn;

        /** Base delay between attempts (jittered, doubling). */
        @Pattern(Patterns.DURATION)
        public String backoff;
    }

    /** FastCGI settings; see docs/config.md. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class FastCgi {
        /** The document root as the FastCGI server sees it. */
        @Required
        @Pattern("^/")
        public String root;

        /** The script for paths ending in {@code /}. */
        public String index;

        /** A regular expression with two groups: script name and path info. */
        public String splitPathInfo;

        /** Extra CGI params (name to value). */
        public Map<String, String> params;

        /** Request bodies up to this many bytes are buffered to send CONTENT_LENGTH. */
        @Min(0)
        public Long maxBufferedBody;
    }
}
