package dev.strait.model;

import java.util.List;
import java.util.Map;

/**
 * The whole serving configuration: what the standalone config file holds and what the operator's
 * control channel sends. Immutable; a change is a new {@code Config}, swapped in whole.
 *
 * @param workers   event loops; {@code 0} means one per core
 * @param transport which I/O transport to use
 * @param accessLog access log settings
 * @param limits    HTTP/1.1 limits and timeouts
 * @param listeners where traffic is accepted
 * @param admin     the admin listener, or {@code null} for none
 * @param upstreams named groups of endpoints that backends refer to
 * @param routes    virtual hosts and their rules
 * @param requestId what the proxy does with an incoming {@code X-Request-Id}
 * @param cache     the response cache's store, shared by every rule with {@code cache}
 * @param forwardedHeaders which peers' {@code X-Forwarded-Proto} the proxy believes
 * @param resolver  how endpoint names are looked up
 * @param tracing   distributed tracing, or {@code null} for none (a client's {@code traceparent} then passes as sent)
 */
public record Config(
        int workers,
        Transport transport,
        AccessLog accessLog,
        Limits limits,
        List<Listener> listeners,
        Admin admin,
        List<Upstream> upstreams,
        List<Route> routes,
        RequestId requestId,
        CacheStore cache,
        ForwardedHeaders forwardedHeaders,
        Resolver resolver,
        Tracing tracing,
        RequestBodyFiles requestBodyFiles) {

    public Config {
        listeners = List.copyOf(listeners);
        upstreams = List.copyOf(upstreams);
        routes = List.copyOf(routes);
        if (requestId == null) {
            requestId = RequestId.DEFAULTS;
        }
        if (cache == null) {
            cache = CacheStore.DEFAULTS;
        }
        if (forwardedHeaders == null) {
            forwardedHeaders = ForwardedHeaders.DEFAULTS;
        }
        if (resolver == null) {
            resolver = Resolver.DEFAULTS;
        }
        if (requestBodyFiles == null) {
            requestBodyFiles = RequestBodyFiles.DEFAULTS;
        }
    }

    public Config(int workers, Transport transport, AccessLog accessLog, Limits limits, List<Listener> listeners,
                  Admin admin, List<Upstream> upstreams, List<Route> routes, RequestId requestId, CacheStore cache,
                  ForwardedHeaders forwardedHeaders, Resolver resolver, Tracing tracing) {
        this(workers, transport, accessLog, limits, listeners, admin, upstreams, routes, requestId, cache,
                forwardedHeaders, resolver, tracing, RequestBodyFiles.DEFAULTS);
    }

    public Config(int workers, Transport transport, AccessLog accessLog, Limits limits, List<Listener> listeners,
                  Admin admin, List<Upstream> upstreams, List<Route> routes, RequestId requestId, CacheStore cache,
                  ForwardedHeaders forwardedHeaders, Resolver resolver) {
        this(workers, transport, accessLog, limits, listeners, admin, upstreams, routes, requestId, cache,
                forwardedHeaders, resolver, null);
    }

    public Config(int workers, Transport transport, AccessLog accessLog, Limits limits, List<Listener> listeners,
                  Admin admin, List<Upstream> upstreams, List<Route> routes, RequestId requestId, CacheStore cache,
                  ForwardedHeaders forwardedHeaders) {
        this(workers, transport, accessLog, limits, listeners, admin, upstreams, routes, requestId, cache,
                forwardedHeaders, Resolver.DEFAULTS);
    }

    public Config(int workers, Transport transport, AccessLog accessLog, Limits limits, List<Listener> listeners,
                  Admin admin, List<Upstream> upstreams, List<Route> routes, RequestId requestId, CacheStore cache) {
        this(workers, transport, accessLog, limits, listeners, admin, upstreams, routes, requestId, cache,
                ForwardedHeaders.DEFAULTS);
    }

    public Config(int workers, Transport transport, AccessLog accessLog, Limits limits, List<Listener> listeners,
                  Admin admin, List<Upstream> upstreams, List<Route> routes, RequestId requestId) {
        this(workers, transport, accessLog, limits, listeners, admin, upstreams, routes, requestId, CacheStore.DEFAULTS);
    }

    public Config(int workers, Transport transport, AccessLog accessLog, Limits limits, List<Listener> listeners,
                  Admin admin, List<Upstream> upstreams, List<Route> routes) {
        this(workers, transport, accessLog, limits, listeners, admin, upstreams, routes, RequestId.DEFAULTS,
                CacheStore.DEFAULTS);
    }

    /** The I/O transport: {@code auto} takes io_uring, then epoll, then NIO, whichever works here. */
    public enum Transport { AUTO, IO_URING, EPOLL, NIO }

    public record AccessLog(boolean enabled) {}

    public record Admin(HostPort address) {}

    /**
     * @param maxConnections open connections this listener takes, within {@code limits.maxConnections} for
     *                       all listeners; more are closed at once (0 = no cap of its own)
     * @param proxyProtocol  every connection starts with a PROXY protocol header (v1 or v2), whose source address is
     *                       the client's: behind a load balancer that passes TCP on with it (nginx's
     *                       {@code listen ... proxy_protocol}, ingress-nginx's {@code use-proxy-protocol})
     */
    public record Listener(String name, HostPort address, Tls tls, int maxConnections, boolean proxyProtocol) {
        public Listener(String name, HostPort address, Tls tls, int maxConnections) {
            this(name, address, tls, maxConnections, false);
        }

        public Listener(String name, HostPort address, Tls tls) {
            this(name, address, tls, 0);
        }
    }

    /**
     * A TLS listener: its certificates (chosen by SNI), which hosts ask clients for a certificate
     * ({@code clientValidation}, ADR 0075), and whether each certificate's OCSP status is stapled to its handshakes
     * ({@code ocspStapling}, fetched from the responder the certificate names: ADR 0104).
     */
    /**
     * @param minVersion the oldest TLS version a handshake may use (nginx's {@code ssl_protocols}): 1.2 (the default)
     *                   or 1.3
     * @param ciphers    the TLS 1.2 cipher suites, IANA names, in the server's order of preference (nginx's
     *                   {@code ssl_ciphers}); empty: the default, ECDHE with AES-GCM or ChaCha20-Poly1305. TLS 1.3's
     *                   suites are not chosen (BoringSSL's three are always offered)
     */
    public record Tls(List<Certificate> certificates, List<ClientValidation> clientValidation, boolean ocspStapling,
                      TlsVersion minVersion, List<String> ciphers) {
        public Tls {
            certificates = List.copyOf(certificates);
            clientValidation = List.copyOf(clientValidation);
            minVersion = minVersion == null ? TlsVersion.TLS_1_2 : minVersion;
            ciphers = ciphers == null ? List.of() : List.copyOf(ciphers);
        }

        public Tls(List<Certificate> certificates, List<ClientValidation> clientValidation, boolean ocspStapling) {
            this(certificates, clientValidation, ocspStapling, TlsVersion.TLS_1_2, List.of());
        }

        public Tls(List<Certificate> certificates, List<ClientValidation> clientValidation) {
            this(certificates, clientValidation, false);
        }

        public Tls(List<Certificate> certificates) {
            this(certificates, List.of());
        }
    }

    /** A TLS version a listener may start at; older ones (1.0, 1.1: RFC 8996) are never spoken. */
    public enum TlsVersion {
        TLS_1_2("1.2"), TLS_1_3("1.3");

        private final String number;

        TlsVersion(String number) {
            this.number = number;
        }

        /** As config writes it: {@code 1.2}. */
        public String number() {
            return number;
        }

        /** {@code 1.2} or {@code 1.3}, also as nginx writes them ({@code TLSv1.3}); null for anything else. */
        public static TlsVersion of(String text) {
            String v = text.trim();
            if (v.regionMatches(true, 0, "TLSv", 0, 4)) {
                v = v.substring(4);
            }
            for (TlsVersion t : values()) {
                if (t.number.equals(v)) {
                    return t;
                }
            }
            return null;
        }
    }

    /**
     * Client certificates for some hosts of a TLS listener (nginx's {@code ssl_verify_client}, ingress-nginx's
     * {@code auth-tls-*}, Envoy's {@code require_client_certificate}). A handshake whose SNI name is one of
     * {@code hosts} (exact, {@code *.domain} for one label, or {@code *} for every other name) asks for a
     * certificate issued by {@code ca}; each request for such a host is checked against the verdict.
     *
     * @param ca            PEM (inline or a file) of the CAs that may issue client certificates; null only with
     *                      {@link ClientValidationMode#OPTIONAL_NO_CA}
     * @param verifyDepth   how many certificates may stand between the client's and a CA of {@code ca}, plus one:
     *                      1 (nginx's default) means issued by one of them directly
     * @param subjectMatch  a Java regular expression that must be found in the certificate's subject
     *                      (RFC 2253, as nginx's {@code $ssl_client_s_dn}) or the request gets 403; null for any
     * @param forwardCertificate send the certificate upstream too ({@code ssl-client-cert}, URL-escaped PEM)
     * @param crl           PEM (inline or a file) of revocation lists of {@code ca}'s CAs, or null: a certificate one
     *                      of them lists is refused, and so is every one of a CA whose list has expired (nginx's
     *                      {@code ssl_crl})
     * @param errorPage     where a refused request is sent instead (302; an http(s) URL or a path), or null: the 400
     *                      or 403 itself (ingress-nginx's {@code auth-tls-error-page})
     */
    /**
     * @param ocsp          whose status is asked of the CAs' OCSP responders once a chain is valid (nginx's
     *                      {@code ssl_ocsp}); {@link ClientOcsp#OFF} by default
     * @param ocspResponder the responder asked instead of the one each certificate names (nginx's
     *                      {@code ssl_ocsp_responder}); null: each certificate's own
     */
    public record ClientValidation(List<String> hosts, String ca, ClientValidationMode mode, int verifyDepth,
                                   String subjectMatch, boolean forwardCertificate, String crl, String errorPage,
                                   ClientOcsp ocsp, String ocspResponder) {
        public static final int DEFAULT_VERIFY_DEPTH = 1;

        public ClientValidation {
            hosts = List.copyOf(hosts);
            ocsp = ocsp == null ? ClientOcsp.OFF : ocsp;
        }

        public ClientValidation(List<String> hosts, String ca, ClientValidationMode mode, int verifyDepth,
                                String subjectMatch, boolean forwardCertificate, String crl, String errorPage) {
            this(hosts, ca, mode, verifyDepth, subjectMatch, forwardCertificate, crl, errorPage, ClientOcsp.OFF, null);
        }

        public ClientValidation(List<String> hosts, String ca, ClientValidationMode mode, int verifyDepth,
                                String subjectMatch, boolean forwardCertificate, String crl) {
            this(hosts, ca, mode, verifyDepth, subjectMatch, forwardCertificate, crl, null);
        }

        public ClientValidation(List<String> hosts, String ca, ClientValidationMode mode, int verifyDepth,
                                String subjectMatch, boolean forwardCertificate) {
            this(hosts, ca, mode, verifyDepth, subjectMatch, forwardCertificate, null, null);
        }

        /** The same settings for other hosts (none: the settings alone, to compare two entries by). */
        public ClientValidation withHosts(List<String> others) {
            return new ClientValidation(others, ca, mode, verifyDepth, subjectMatch, forwardCertificate, crl, errorPage,
                    ocsp, ocspResponder);
        }
    }

    /**
     * Which certificates of a client's valid chain have their status asked of OCSP (nginx's {@code ssl_ocsp}):
     * none, the client's own ({@code leaf}), or each one up to the CA of {@code ca} ({@code chain}, nginx's
     * {@code on}).
     */
    public enum ClientOcsp { OFF, LEAF, CHAIN }

    /**
     * {@code require}: a request without a valid certificate gets 400. {@code optional}: a client may send none,
     * but one it sends must be valid. {@code optional-no-ca}: any certificate or none; the verdict only goes
     * upstream.
     */
    public enum ClientValidationMode { REQUIRE, OPTIONAL, OPTIONAL_NO_CA }

    /**
     * A certificate and its key (PEM, inline or files).
     *
     * @param ocspResponse a file holding an OCSP answer about the certificate (DER, as {@code openssl ocsp -respout}
     *                     writes it) to staple to its handshakes, kept fresh by whoever writes the file (nginx's
     *                     {@code ssl_stapling_file}); null: none, or fetched where the listener has {@code ocspStapling}
     */
    public record Certificate(String cert, String key, String ocspResponse) {
        public Certificate(String cert, String key) {
            this(cert, key, null);
        }
    }

    /**
     * {@code X-Request-Id} on proxied requests.
     *
     * @param trustIncoming keep a client's id when it is a sane token (up to 128 letters, digits and
     *                      {@code -_.:+/=@~}); otherwise, and when false, the proxy makes a new one
     * @param trustedPeers  when not empty, only ids from these peers (the connection's) are kept: the proxies
     *                      and load balancers in front, whose ids name requests end to end, and not a
     *                      client's, which could make its requests look like someone else's in the logs
     */
    public record RequestId(boolean trustIncoming, List<IpBlock> trustedPeers) {
        public static final RequestId DEFAULTS = new RequestId(true);

        public RequestId {
            trustedPeers = List.copyOf(trustedPeers);
        }

        public RequestId(boolean trustIncoming) {
            this(trustIncoming, List.of());
        }

        /** Whether an id that came from {@code peer} (null: unknown) is kept. */
        public boolean trusts(java.net.InetAddress peer) {
            if (!trustIncoming) {
                return false;
            }
            return trustedPeers.isEmpty() || peer != null && IpBlock.anyContains(trustedPeers, peer);
        }
    }

    /**
     * What the proxy believes of the {@code X-Forwarded-*} fields a request arrives with.
     *
     * @param trustedPeers the addresses (a load balancer's, say) whose {@code X-Forwarded-Proto: https} or
     *                     {@code http} says how the client reached them: kept upstream and taken as the
     *                     request's scheme. Others' is replaced with the scheme of their own connection.
     *                     Their {@code X-Forwarded-For} names the client (the right-most address not in
     *                     this list), for the access log, FastCGI and hashing (ADR 0059).
     */
    public record ForwardedHeaders(List<IpBlock> trustedPeers) {
        public static final ForwardedHeaders DEFAULTS = new ForwardedHeaders(List.of());

        public ForwardedHeaders {
            trustedPeers = List.copyOf(trustedPeers);
        }

        /** Whether a connection from {@code peer} is one whose forwarded fields are believed. */
        public boolean trusts(java.net.InetAddress peer) {
            return IpBlock.anyContains(trustedPeers, peer);
        }
    }

    /**
     * The response cache's store, one per proxy process.
     *
     * @param maxBytes the most memory stored responses (heads and bodies) may take; the least valuable entries
     *                 are evicted beyond it
     */
    public record CacheStore(long maxBytes) {
        public static final CacheStore DEFAULTS = new CacheStore(128L * 1024 * 1024);
    }

    /**
     * Where request bodies go that rules read before asking their upstream ({@code requestBuffering}, FastCGI) once
     * they outgrow what the rule holds in memory: nginx's {@code client_body_temp_path}. Each body is a file of its
     * own, unlinked as soon as it is made (a crash leaves nothing behind), and the files together never hold more
     * than {@code maxBytes}: past it, a body streams as it would without files, so a full disk or volume never
     * turns into failed requests or an evicted pod.
     *
     * @param directory where the files are made; {@code null}: the JVM's {@code java.io.tmpdir} ({@code /tmp})
     * @param maxBytes  the most all files may hold at once; 0: no files
     */
    public record RequestBodyFiles(String directory, long maxBytes) {
        public static final RequestBodyFiles DEFAULTS = new RequestBodyFiles(null, 256L << 20);
    }

    /**
     * How endpoint names are looked up (DNS, without blocking an event loop). Read at start only.
     *
     * @param nameservers the DNS servers to ask, in order; empty: those of {@code /etc/resolv.conf}
     * @param timeout     how long one query may take; {@code null}: {@code /etc/resolv.conf}'s (5 s by default)
     */
    public record Resolver(List<HostPort> nameservers, java.time.Duration timeout) {
        public static final Resolver DEFAULTS = new Resolver(List.of(), null);

        public Resolver {
            nameservers = List.copyOf(nameservers);
        }
    }

    /**
     * Distributed tracing: each request the proxy serves is a span of a W3C Trace Context trace, sent in
     * OTLP/HTTP batches to a collector, and requests go upstream with a {@code traceparent} naming it.
     *
     * @param endpoint      the collector's OTLP/HTTP traces URL, {@code http://HOST:PORT/v1/traces} (or https;
     *                      a URL without a path gets {@code /v1/traces}, as the OpenTelemetry exporters add it)
     * @param percent       the share of new traces recorded, 0 to 100; a request whose trusted
     *                      {@code traceparent} says sampled or not is recorded as it says (parent-based)
     * @param serviceName   the spans' {@code service.name}
     * @param trustIncoming continue a client's trace: true, false, or only from these peers (non-empty
     *                      {@link #trustedPeers}); otherwise each request starts a trace of its own
     * @param trustedPeers  when not empty, only these peers' {@code traceparent} is continued
     * @param flushInterval the longest a finished span waits before its batch goes out
     * @param headers       fields sent with every batch (a hosted collector's API key, say); the environment's
     *                      {@code OTEL_EXPORTER_OTLP_HEADERS} adds to them
     * @param protocol      how batches are sent: {@code http/protobuf} (OpenTelemetry's default, which every OTLP
     *                      receiver must take), {@code http/json} or {@code grpc}; the environment's
     *                      {@code OTEL_EXPORTER_OTLP_PROTOCOL} overrides it
     * @param upstreamSpans each try of a proxied request is a span of its own (kind CLIENT, a child of the request's),
     *                      which the upstream's {@code traceparent} names: retries, connect and upstream time show
     *                      apart (Envoy's {@code start_child_span}); off by default, as it doubles the spans sent
     */
    public record Tracing(String endpoint, double percent, String serviceName, boolean trustIncoming,
                          List<IpBlock> trustedPeers, java.time.Duration flushInterval, Map<String, String> headers,
                          String protocol, boolean upstreamSpans) {
        public static final String PROTOBUF = "http/protobuf";
        public static final String JSON = "http/json";
        /** OTLP over gRPC (HTTP/2), the collector's port 4317: what ingress-nginx, Envoy and Contour send. */
        public static final String GRPC = "grpc";
        public static final List<String> PROTOCOLS = List.of(PROTOBUF, JSON, GRPC);
        public static final String DEFAULT_SERVICE_NAME = "strait";
        public static final java.time.Duration DEFAULT_FLUSH_INTERVAL = java.time.Duration.ofSeconds(5);

        public Tracing {
            trustedPeers = List.copyOf(trustedPeers);
            headers = headers == null ? Map.of() : Map.copyOf(headers);
            if (serviceName == null) {
                serviceName = DEFAULT_SERVICE_NAME;
            }
            if (flushInterval == null) {
                flushInterval = DEFAULT_FLUSH_INTERVAL;
            }
            if (protocol == null) {
                protocol = PROTOBUF;
            }
        }

        /** Without upstream spans. */
        public Tracing(String endpoint, double percent, String serviceName, boolean trustIncoming,
                       List<IpBlock> trustedPeers, java.time.Duration flushInterval, Map<String, String> headers,
                       String protocol) {
            this(endpoint, percent, serviceName, trustIncoming, trustedPeers, flushInterval, headers, protocol, false);
        }

        public Tracing(String endpoint, double percent, String serviceName, boolean trustIncoming,
                       List<IpBlock> trustedPeers, java.time.Duration flushInterval, Map<String, String> headers) {
            this(endpoint, percent, serviceName, trustIncoming, trustedPeers, flushInterval, headers, PROTOBUF);
        }

        /** Batches sent with no fields but the environment's. */
        public Tracing(String endpoint, double percent, String serviceName, boolean trustIncoming,
                       List<IpBlock> trustedPeers, java.time.Duration flushInterval) {
            this(endpoint, percent, serviceName, trustIncoming, trustedPeers, flushInterval, Map.of());
        }

        /** Every new trace recorded, clients' traces continued, batches every 5 s. */
        public Tracing(String endpoint) {
            this(endpoint, 100, DEFAULT_SERVICE_NAME, true, List.of(), DEFAULT_FLUSH_INTERVAL);
        }

        /** Whether a {@code traceparent} that came from {@code peer} (null: unknown) is continued. */
        public boolean trusts(java.net.InetAddress peer) {
            if (!trustIncoming) {
                return false;
            }
            return trustedPeers.isEmpty() || peer != null && IpBlock.anyContains(trustedPeers, peer);
        }
    }
}
