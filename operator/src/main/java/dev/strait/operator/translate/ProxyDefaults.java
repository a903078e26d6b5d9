package dev.strait.operator.translate;

import dev.strait.model.Config;
import dev.strait.model.HostPort;
import dev.strait.model.Limits;
import dev.strait.model.Route;
import java.util.List;

/**
 * What a snapshot carries besides routes and upstreams: the proxies' listeners and admin address
 * (which apply when a proxy starts), and which ingress classes the operator answers for and in which
 * cluster DNS domain it reads Services' names.
 *
 * @param defaultClass the class of Routes without {@code ingressClassName}
 * @param sidecarClass the class whose Routes go to sidecars, per namespace
 * @param http         the plain HTTP listener
 * @param https        the TLS listener, present in a snapshot only when one of its Routes has TLS (or, for the ingress
 *                     proxies, the default certificate can be used); null for none
 * @param admin        the proxies' admin listener; null for none
 * @param forwardedHeaders the peers (a load balancer that ends TLS) whose {@code X-Forwarded-Proto} ingress
 *                     proxies believe (ADR 0057); sidecars trust none
 * @param proxyProtocol whether the ingress proxies' listeners read a PROXY protocol header first (a TCP load
 *                     balancer in front, ADR 0083); sidecars' never do, their traffic comes from pods
 * @param tracing      distributed tracing for every proxy the operator programs, ingress proxies and sidecars alike
 *                     (a trace crosses both); null for none
 * @param clusterDomain the cluster's DNS domain (kubelet's {@code --cluster-domain}, the operator's own), in which
 *                     {@code NAME.NAMESPACE.svc.DOMAIN} is a Service; null for the default,
 *                     {@code cluster.local}
 * @param ingressCompression the compression every backend rule made from an Ingress gets (ingress-nginx's
 *                     {@code use-gzip} and its ConfigMap's {@code gzip-*} and {@code enable-brotli}, the operator's
 *                     {@code --ingress-compression*});
 *                     null for none. Routes state their own
 * @param ingressHsts  the {@code hsts} every Route made from an Ingress for a host it serves with a certificate gets
 *                     (ingress-nginx's ConfigMap keys {@code hsts}, {@code hsts-max-age}, {@code hsts-include-subdomains},
 *                     {@code hsts-preload}, the operator's {@code --ingress-hsts}); null for none. On by default, as in
 *                     ingress-nginx ({@link #INGRESS_HSTS}); Routes state their own
 * @param defaultCertificate the {@code kubernetes.io/tls} Secret whose certificate the ingress proxies' https listener
 *                     lists first (it answers handshakes for names no other certificate has, and those without SNI),
 *                     and that serves the hosts an Ingress lists in a {@code spec.tls} entry without {@code secretName}
 *                     (ingress-nginx's {@code --default-ssl-certificate}, the operator's own); null for none
 * @param requestBodyFiles the request body files of every proxy the operator programs, ingress proxies and sidecars
 *                     alike (the operator's {@code --proxy-request-body-files-max-bytes}); the directory is always the
 *                     proxies' own ({@code /tmp}), whose volume the chart and the sidecar injector size from the same
 *                     budget. Null for {@link Config.RequestBodyFiles#DEFAULTS}
 * @param ocspStapling whether the ingress proxies' https listener staples its certificates' OCSP answers (ADR 0104;
 *                     ingress-nginx's ConfigMap key {@code enable-ocsp}, the operator's {@code --proxy-ocsp-stapling}):
 *                     off by default, since the proxies then ask the CAs' responders, which an egress policy may
 *                     forbid. Sidecars' never do
 * @param tlsMinVersion the oldest TLS version every proxy's https listener speaks (the operator's
 *                     {@code --proxy-tls-min-version}, ingress-nginx's ConfigMap key {@code ssl-protocols}); null: 1.2
 * @param tlsCiphers   the TLS 1.2 suites of every proxy's https listener, IANA names (the operator's
 *                     {@code --proxy-tls-ciphers}, ingress-nginx's {@code ssl-ciphers}); null or empty: the proxy's
 *                     default
 */
public record ProxyDefaults(
        String defaultClass,
        String sidecarClass,
        HostPort http,
        HostPort https,
        HostPort admin,
        Limits limits,
        boolean accessLog,
        Config.ForwardedHeaders forwardedHeaders,
        boolean proxyProtocol,
        Config.Tracing tracing,
        String clusterDomain,
        Route.Compression ingressCompression,
        Route.Hsts ingressHsts,
        SecretRef defaultCertificate,
        Config.RequestBodyFiles requestBodyFiles,
        boolean ocspStapling,
        Config.TlsVersion tlsMinVersion,
        List<String> tlsCiphers) {

    public ProxyDefaults {
        if (requestBodyFiles == null) {
            requestBodyFiles = Config.RequestBodyFiles.DEFAULTS;
        }
        if (forwardedHeaders == null) {
            forwardedHeaders = Config.ForwardedHeaders.DEFAULTS;
        }
        if (clusterDomain == null) {
            clusterDomain = ClusterDns.DEFAULT_DOMAIN;
        }
        if (tlsMinVersion == null) {
            tlsMinVersion = Config.TlsVersion.TLS_1_2;
        }
        tlsCiphers = tlsCiphers == null ? List.of() : List.copyOf(tlsCiphers);
    }

    /** With the proxies' own TLS versions and suites, as every constructor that does not say. */
    public ProxyDefaults(String defaultClass, String sidecarClass, HostPort http, HostPort https, HostPort admin,
                         Limits limits, boolean accessLog, Config.ForwardedHeaders forwardedHeaders,
                         boolean proxyProtocol, Config.Tracing tracing, String clusterDomain,
                         Route.Compression ingressCompression, Route.Hsts ingressHsts, SecretRef defaultCertificate,
                         Config.RequestBodyFiles requestBodyFiles, boolean ocspStapling) {
        this(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders, proxyProtocol, tracing,
                clusterDomain, ingressCompression, ingressHsts, defaultCertificate, requestBodyFiles, ocspStapling, null,
                null);
    }

    public ProxyDefaults(String defaultClass, String sidecarClass, HostPort http, HostPort https, HostPort admin,
                         Limits limits, boolean accessLog) {
        this(defaultClass, sidecarClass, http, https, admin, limits, accessLog, Config.ForwardedHeaders.DEFAULTS);
    }

    public ProxyDefaults(String defaultClass, String sidecarClass, HostPort http, HostPort https, HostPort admin,
                         Limits limits, boolean accessLog, Config.ForwardedHeaders forwardedHeaders) {
        this(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders, false);
    }

    public ProxyDefaults(String defaultClass, String sidecarClass, HostPort http, HostPort https, HostPort admin,
                         Limits limits, boolean accessLog, Config.ForwardedHeaders forwardedHeaders,
                         boolean proxyProtocol) {
        this(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders, proxyProtocol, null);
    }

    public ProxyDefaults(String defaultClass, String sidecarClass, HostPort http, HostPort https, HostPort admin,
                         Limits limits, boolean accessLog, Config.ForwardedHeaders forwardedHeaders,
                         boolean proxyProtocol, Config.Tracing tracing) {
        this(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders, proxyProtocol, tracing,
                null);
    }

    public ProxyDefaults(String defaultClass, String sidecarClass, HostPort http, HostPort https, HostPort admin,
                         Limits limits, boolean accessLog, Config.ForwardedHeaders forwardedHeaders,
                         boolean proxyProtocol, Config.Tracing tracing, String clusterDomain) {
        this(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders, proxyProtocol, tracing,
                clusterDomain, null);
    }

    /** With ingress-nginx's HSTS for the Ingresses' TLS hosts ({@link #INGRESS_HSTS}), as every constructor that does not say. */
    public ProxyDefaults(String defaultClass, String sidecarClass, HostPort http, HostPort https, HostPort admin,
                         Limits limits, boolean accessLog, Config.ForwardedHeaders forwardedHeaders,
                         boolean proxyProtocol, Config.Tracing tracing, String clusterDomain,
                         Route.Compression ingressCompression) {
        this(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders, proxyProtocol, tracing,
                clusterDomain, ingressCompression, INGRESS_HSTS);
    }

    /** Without a default certificate, as every constructor that does not say. */
    public ProxyDefaults(String defaultClass, String sidecarClass, HostPort http, HostPort https, HostPort admin,
                         Limits limits, boolean accessLog, Config.ForwardedHeaders forwardedHeaders,
                         boolean proxyProtocol, Config.Tracing tracing, String clusterDomain,
                         Route.Compression ingressCompression, Route.Hsts ingressHsts) {
        this(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders, proxyProtocol, tracing,
                clusterDomain, ingressCompression, ingressHsts, null);
    }

    /** With the proxies' default request body files, as every constructor that does not say. */
    public ProxyDefaults(String defaultClass, String sidecarClass, HostPort http, HostPort https, HostPort admin,
                         Limits limits, boolean accessLog, Config.ForwardedHeaders forwardedHeaders,
                         boolean proxyProtocol, Config.Tracing tracing, String clusterDomain,
                         Route.Compression ingressCompression, Route.Hsts ingressHsts, SecretRef defaultCertificate) {
        this(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders, proxyProtocol, tracing,
                clusterDomain, ingressCompression, ingressHsts, defaultCertificate, null);
    }

    /** Without OCSP stapling, as every constructor that does not say. */
    public ProxyDefaults(String defaultClass, String sidecarClass, HostPort http, HostPort https, HostPort admin,
                         Limits limits, boolean accessLog, Config.ForwardedHeaders forwardedHeaders,
                         boolean proxyProtocol, Config.Tracing tracing, String clusterDomain,
                         Route.Compression ingressCompression, Route.Hsts ingressHsts, SecretRef defaultCertificate,
                         Config.RequestBodyFiles requestBodyFiles) {
        this(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders, proxyProtocol, tracing,
                clusterDomain, ingressCompression, ingressHsts, defaultCertificate, requestBodyFiles, false);
    }

    /** The same defaults with another default certificate (null for none). */
    public ProxyDefaults withDefaultCertificate(SecretRef secret) {
        return new ProxyDefaults(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders,
                proxyProtocol, tracing, clusterDomain, ingressCompression, ingressHsts, secret, requestBodyFiles,
                ocspStapling, tlsMinVersion, tlsCiphers);
    }

    /** The same defaults with other request body files (null for the proxies' defaults). */
    public ProxyDefaults withRequestBodyFiles(Config.RequestBodyFiles files) {
        return new ProxyDefaults(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders,
                proxyProtocol, tracing, clusterDomain, ingressCompression, ingressHsts, defaultCertificate, files,
                ocspStapling, tlsMinVersion, tlsCiphers);
    }

    /** The same defaults with the ingress proxies' OCSP stapling on or off. */
    public ProxyDefaults withOcspStapling(boolean on) {
        return new ProxyDefaults(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders,
                proxyProtocol, tracing, clusterDomain, ingressCompression, ingressHsts, defaultCertificate,
                requestBodyFiles, on, tlsMinVersion, tlsCiphers);
    }

    /** The same defaults with other TLS versions and suites for every proxy's https listener (null: the proxy's). */
    public ProxyDefaults withTls(Config.TlsVersion minVersion, List<String> ciphers) {
        return new ProxyDefaults(defaultClass, sidecarClass, http, https, admin, limits, accessLog, forwardedHeaders,
                proxyProtocol, tracing, clusterDomain, ingressCompression, ingressHsts, defaultCertificate,
                requestBodyFiles, ocspStapling, minVersion, ciphers);
    }

    /**
     * A Secret named by the operator's own configuration, {@code NAMESPACE/NAME}: read wherever it is, without the
     * consent a Route's reference to another namespace needs (ADR 0078), since whoever configures the operator can
     * read every Secret it watches anyway.
     */
    public record SecretRef(String namespace, String name) {
        /** RFC 1123 label: a namespace's name. */
        private static final java.util.regex.Pattern LABEL =
                java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
        /** RFC 1123 subdomain: a Secret's name. */
        private static final java.util.regex.Pattern SUBDOMAIN =
                java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

        /**
         * {@code NAMESPACE/NAME}, as ingress-nginx's flag takes it; anything else is refused, saying what is wrong
         * (a value the API server could never hold would leave every such host on plain HTTP for ever).
         */
        public static SecretRef parse(String value) {
            String v = value == null ? "" : value.trim();
            int slash = v.indexOf('/');
            if (slash < 0 || slash != v.lastIndexOf('/')) {
                throw new IllegalArgumentException("\"" + v + "\" is not NAMESPACE/NAME (a kubernetes.io/tls Secret,"
                        + " e.g. ingress-nginx/default-tls)");
            }
            String ns = v.substring(0, slash);
            String name = v.substring(slash + 1);
            if (!LABEL.matcher(ns).matches()) {
                throw new IllegalArgumentException("\"" + v + "\": \"" + ns + "\" is no namespace name (1 to 63 of"
                        + " a-z, 0-9 and '-', neither first nor last)");
            }
            if (name.length() > 253 || !SUBDOMAIN.matcher(name).matches()) {
                throw new IllegalArgumentException("\"" + v + "\": \"" + name + "\" is no Secret name (lower-case"
                        + " DNS labels, a-z, 0-9 and '-', joined by dots, at most 253 characters)");
            }
            return new SecretRef(ns, name);
        }

        @Override
        public String toString() {
            return namespace + "/" + name;
        }
    }

    /**
     * ingress-nginx's HSTS, on by default for every host with a certificate: {@code max-age=31536000; includeSubDomains}
     * (its ConfigMap's {@code hsts-max-age}, {@code hsts-include-subdomains} "true", {@code hsts-preload} "false"), so a
     * migration keeps what browsers were told.
     */
    public static final Route.Hsts INGRESS_HSTS = new Route.Hsts(Route.Hsts.DEFAULT_MAX_AGE, true, false);

    /** The plain listener's name in every snapshot (Routes may name it in {@code listeners}). */
    public static final String HTTP = "http";
    /** The TLS listener's name, in snapshots with a Route that has TLS. */
    public static final String HTTPS = "https";
    /** The names a Route's {@code listeners} may use: those the proxies' listeners get. */
    public static final List<String> LISTENERS = List.of(HTTP, HTTPS);

    /** In a pod the admin port must be reachable by the kubelet's probes, hence 0.0.0.0. */
    public static final ProxyDefaults STANDARD = new ProxyDefaults("strait", "strait-sidecar",
            new HostPort("0.0.0.0", 8080), new HostPort("0.0.0.0", 8443), new HostPort("0.0.0.0", 9901),
            Limits.DEFAULTS, true);

    public Config.Admin adminConfig() {
        return admin == null ? null : new Config.Admin(admin);
    }

    /** The scope a Route of this class in this namespace belongs to. */
    public Scope scopeOf(String ingressClassName, String namespace) {
        String cls = ingressClassName == null || ingressClassName.isEmpty() ? defaultClass : ingressClassName;
        return cls.equals(sidecarClass) ? Scope.sidecar(cls, namespace) : Scope.ingress(cls);
    }
}
