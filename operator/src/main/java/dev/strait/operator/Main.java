package dev.strait.operator;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.model.Config;
import dev.strait.model.ConfigError;
import dev.strait.model.ConfigParser;
import dev.strait.model.Flags;
import dev.strait.model.HostPort;
import dev.strait.model.InvalidConfigException;
import dev.strait.model.IpBlock;
import dev.strait.operator.inject.AdmissionHandler;
import dev.strait.operator.inject.SidecarInjector;
import dev.strait.operator.inject.WebhookCertificates;
import dev.strait.operator.inject.WebhookServer;
import dev.strait.operator.reconcile.OperatorApp;
import dev.strait.operator.translate.ProxyDefaults;
import dev.strait.operator.crd.Route;
import dev.strait.operator.publish.Authenticators;
import dev.strait.operator.publish.tls.CaStore;
import dev.strait.operator.publish.tls.ChannelCertificates;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar strait-operator.jar}: runs against the current kubeconfig context (in a cluster, the
 * pod's service account), like every java-operator-sdk operator, and serves the control channel.
 */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);
    private static final Path SERVICE_ACCOUNT_NAMESPACE = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
    private static final String USAGE = """
            usage: java -jar strait-operator.jar [options]
              --control-address HOST:PORT  where proxies dial in (default 0.0.0.0:18000)
              --leader-election true|false only the holder of the Lease strait-operator writes status
                                           (default: true inside a cluster, false outside)
              --secure true|false          TLS with the operator's own CA (Secret and ConfigMap
                                           strait-control-ca) and proxy authentication by client
                                           certificate or service-account token (default: true inside
                                           a cluster, false outside)
              --control-names A,B,...      names in the serving certificate (default: strait-operator.NS.svc,
                                           strait-operator.NS.svc.DOMAIN, localhost, 127.0.0.1)
              --cluster-domain DOMAIN      the cluster's DNS domain (kubelet's --cluster-domain): a Service is
                                           NAME.NAMESPACE.svc.DOMAIN in auth-url, mirror-target and ExternalName
                                           Services, and in the certificates above (default cluster.local)
              --ingress-address ADDRESS    what Ingresses show as their address: NAMESPACE/SERVICE (the
                                           proxies' Service; its load-balancer address is copied) or
                                           fixed addresses A,B,... (default: none)
              --webhook-address HOST:PORT  serve the sidecar injection webhook over HTTPS (default: off)
              --webhook-config NAME        the MutatingWebhookConfiguration whose caBundle to keep current
                                           (default: strait-sidecar-injector)
              --webhook-service NAME       the Service in front of the webhook (default: strait-operator)
              --sidecar-image IMAGE        the proxy image the webhook injects (default: ghcr.io/strait-dev/strait-proxy:0.1.0)
              --proxy-http-address H:P     the proxies' HTTP listener, sent in every snapshot (default 0.0.0.0:8080)
              --proxy-https-address H:P    the proxies' TLS listener, when a Route has TLS (default 0.0.0.0:8443)
              --proxy-admin-address H:P    the proxies' admin listener (default 0.0.0.0:9901)
              --proxy-trusted-peers A,B,...  addresses or CIDR blocks (a load balancer that ends TLS) whose
                                           X-Forwarded-Proto the ingress proxies believe (default: none)
              --proxy-protocol true|false  the ingress proxies' listeners read a PROXY protocol header (v1 or
                                           v2) from a TCP load balancer first, and refuse connections
                                           without one (default false)
              --proxy-ocsp-stapling true|false  the ingress proxies staple each certificate's OCSP answer,
                                           fetched from the responder it names, to its handshakes; the
                                           proxies must reach the CAs' responders (default false)
              --proxy-tls-min-version 1.2|1.3  the oldest TLS version every proxy's https listener speaks
                                           (ingress-nginx's ssl-protocols; default 1.2)
              --proxy-tls-ciphers A:B:...  the TLS 1.2 cipher suites of every proxy's https listener, OpenSSL
                                           or IANA names separated by colons, as ingress-nginx's ssl-ciphers
                                           (default: ECDHE with AES-GCM or ChaCha20-Poly1305)
              --proxy-tracing-endpoint URL  every proxy traces its requests and sends the spans to this OTLP
                                           collector, e.g. http://otel-collector.monitoring:4318/v1/traces; a URL
                                           without a path gets /v1/traces; over gRPC a URL without a path,
                                           e.g. http://otel-collector.monitoring:4317 (default: none, no tracing)
              --proxy-tracing-percent N    the share of new traces recorded, 0 to 100 (decimals allowed);
                                           a trusted traceparent's sampled flag decides for its own (default 100)
              --proxy-tracing-service-name NAME  the spans' service.name (default strait)
              --proxy-tracing-trust-incoming true|false|A,B,...  continue a client's traceparent: always,
                                           never, or only from these addresses and CIDR blocks (default true)
              --proxy-tracing-protocol http/protobuf|http/json|grpc  how batches are sent: over HTTP
                                           in protobuf (default, OpenTelemetry's) or JSON, or over gRPC (the
                                           collector's 4317); a proxy's OTEL_EXPORTER_OTLP_PROTOCOL overrides it
              --proxy-tracing-upstream-spans true|false  each try of a proxied request is a span of its own
                                           (kind CLIENT), which the upstream's traceparent names, so retries and
                                           upstream time show apart; doubles the spans sent (default false)
              --proxy-request-body-files-max-bytes N  the most the request body files of every proxy (ingress
                                           proxies and sidecars) hold at once in its /tmp, in bytes; past it a body
                                           streams; 0: no files. Injected sidecars' /tmp is 16Mi + N (default
                                           268435456, 256 MiB; the chart's proxy.requestBodyFiles.maxBytes sets both)
              --ingress-compression true|false  every backend path of an Ingress sends its text answers
                                           compressed to clients that take it, as ingress-nginx's
                                           use-gzip (default false; Routes state their own compression)
              --ingress-compression-level N  1 (fastest) to 9 (smallest), each coding at that level of its
                                           own scale (default 1)
              --ingress-compression-min-bytes N  answers known to be shorter go as they are (default 1024)
              --ingress-compression-types A/B,C/*  the media types compressed (default: the text formats
                                           of the web, docs/config.md)
              --ingress-compression-codings A,B,...  zstd, br, gzip, each once: the first the client takes
                                           is used, this order on a tie (default zstd,gzip; ingress-nginx's
                                           enable-brotli: "true" is adding br)
              --ingress-hsts VALUE         the Strict-Transport-Security every Ingress host with TLS sends over
                                           https, as ingress-nginx's hsts*: max-age=N, optionally followed by
                                           "; includeSubDomains" and "; preload", or off (default
                                           max-age=31536000; includeSubDomains; Routes state their own hsts)
              --default-ssl-certificate NAMESPACE/NAME  a kubernetes.io/tls Secret, as ingress-nginx's flag: the
                                           ingress proxies' https listener answers with it for names no other
                                           certificate has and for clients without SNI, and it serves the
                                           hosts an Ingress lists in spec.tls without a secretName (default:
                                           none; such hosts are served over plain HTTP, reported)
              --server-side-apply true|false  patch status with server-side apply and let the API server
                                           filter Secrets (default true; false for API servers without,
                                           such as fabric8's mock server)
              --help                       this text
            Each option may also be set in the environment: STRAIT_CONTROL_ADDRESS, STRAIT_LEADER_ELECTION,
            STRAIT_SECURE, STRAIT_CONTROL_NAMES, STRAIT_INGRESS_ADDRESS, STRAIT_WEBHOOK_ADDRESS, ...
            The Kubernetes connection is the current kubeconfig context, or the pod's service account.
            The CRDs in crds/ must be applied first: kubectl apply -f crds/
            """;

    private Main() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = options(args);
        if (opts == null) {
            System.exit(2);
            return;
        }
        if (opts.containsKey("help")) {
            System.out.print(USAGE);
            return;
        }
        HostPort address;
        try {
            address = HostPort.parse(opts.getOrDefault("control-address", "0.0.0.0:18000"));
        } catch (IllegalArgumentException e) {
            System.err.println("--control-address " + e.getMessage());
            System.exit(2);
            return;
        }
        Config.Tracing tracing;
        try {
            tracing = tracing(opts);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        dev.strait.model.Route.Compression ingressCompression;
        try {
            ingressCompression = ingressCompression(opts);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        String clusterDomain;
        try {
            clusterDomain = clusterDomain(opts.get("cluster-domain"));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        boolean inCluster = Files.isReadable(SERVICE_ACCOUNT_NAMESPACE);
        boolean leaderElection = Boolean.parseBoolean(opts.getOrDefault("leader-election", String.valueOf(inCluster)));

        KubernetesClient client = new KubernetesClientBuilder().build();
        OperatorApp.Settings settings = OperatorApp.Settings.production(new InetSocketAddress(address.host(), address.port()));
        try {
            ProxyDefaults d = ProxyDefaults.STANDARD;
            settings = settings.withDefaults(tlsChecked(new ProxyDefaults(d.defaultClass(), d.sidecarClass(),
                    flag(opts, "proxy-http-address", d.http().toString(), HostPort::parse),
                    flag(opts, "proxy-https-address", d.https().toString(), HostPort::parse),
                    flag(opts, "proxy-admin-address", d.admin().toString(), HostPort::parse),
                    d.limits(), d.accessLog(), flag(opts, "proxy-trusted-peers", null, Main::trustedPeers),
                    flag(opts, "proxy-protocol", null, Main::proxyProtocol), tracing, clusterDomain,
                    ingressCompression, ingressHsts(opts), defaultCertificate(opts),
                    flag(opts, "proxy-request-body-files-max-bytes", null, Main::requestBodyFiles),
                    flag(opts, "proxy-ocsp-stapling", null, Main::trueOrFalse))
                    .withTls(flag(opts, "proxy-tls-min-version", "1.2", Main::tlsMinVersion),
                            flag(opts, "proxy-tls-ciphers", null, Main::tlsCiphers))));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (!Boolean.parseBoolean(opts.getOrDefault("server-side-apply", "true"))) {
            settings = settings.withoutServerSideApply();
        }
        if (opts.containsKey("ingress-address")) {
            settings = settings.withIngressAddress(opts.get("ingress-address"));
        }
        if (leaderElection) {
            settings = settings.withLeaderElection(new LeaderElectionConfiguration("strait-operator", namespace(client)));
        }
        if (Boolean.parseBoolean(opts.getOrDefault("secure", String.valueOf(inCluster)))) {
            String ns = namespace(client);
            List<String> certNames = opts.containsKey("control-names")
                    ? List.of(opts.get("control-names").split(","))
                    : serviceNames("strait-operator", ns, clusterDomain);
            ChannelCertificates certs = new ChannelCertificates(new CaStore(client, ns), certNames, Clock.systemUTC());
            try {
                certs.refresh();
            } catch (IOException | KubernetesClientException e) {
                log.error("cannot set up the control channel's CA in namespace {}: {}", ns, e.getMessage());
                client.close();
                System.exit(1);
                return;
            }
            ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "strait-certificates");
                t.setDaemon(true);
                return t;
            });
            long every = ChannelCertificates.CHECK_EVERY.toMinutes();
            timer.scheduleAtFixedRate(() -> {
                try {
                    certs.refresh();
                } catch (IOException | RuntimeException e) {
                    log.warn("control channel certificates not refreshed: {}", e.toString());
                }
            }, every, every, TimeUnit.MINUTES);
            settings = settings.withSecurity(certs, Authenticators.certificateOrToken(client, Set.of(ns),
                    Executors.newFixedThreadPool(2, r -> {
                        Thread t = new Thread(r, "strait-token-review");
                        t.setDaemon(true);
                        return t;
                    })));
        } else {
            log.warn("the control channel runs without TLS and without authenticating proxies (--secure false)");
        }
        log.info("connecting to {}", client.getMasterUrl());
        try {
            // Fail in seconds with a useful message rather than after the informers' sync timeout.
            client.resources(Route.class).inAnyNamespace().list(new ListOptionsBuilder().withLimit(1L).build());
        } catch (KubernetesClientException e) {
            log.error("cannot list Routes through the Kubernetes API at {}: {}. Is the kubeconfig context right,"
                    + " and are the CRDs applied (kubectl apply -f crds/)?", client.getMasterUrl(),
                    e.getCode() == 404 ? "the Route CRD is not installed" : String.valueOf(e.getMessage()));
            client.close();
            System.exit(1);
            return;
        }
        WebhookServer webhook = null;
        if (opts.containsKey("webhook-address")) {
            try {
                webhook = webhook(client, opts, clusterDomain, settings.defaults().requestBodyFiles().maxBytes());
            } catch (IOException | RuntimeException e) {
                log.error("cannot start the sidecar injection webhook: {}", e.toString());
                client.close();
                System.exit(1);
                return;
            }
        }
        OperatorApp app = new OperatorApp(client, settings);
        try {
            app.start();
        } catch (RuntimeException e) {
            log.error("cannot start: {}", e.toString());
            app.close();
            client.close();
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        OperatorApp running = app;
        WebhookServer runningWebhook = webhook;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("stopping");
            if (runningWebhook != null) {
                runningWebhook.close();
            }
            running.close();
            client.close();
            stopped.countDown();
        }, "strait-operator-shutdown"));
        stopped.await();
    }

    /** The sidecar webhook: its certificate from the operator's CA, the caBundle patched, HTTPS started. */
    private static WebhookServer webhook(KubernetesClient client, Map<String, String> opts, String clusterDomain,
                                         long requestBodyFilesMaxBytes) throws IOException {
        HostPort at = HostPort.parse(opts.get("webhook-address"));
        String ns = namespace(client);
        String service = opts.getOrDefault("webhook-service", "strait-operator");
        WebhookCertificates certs = new WebhookCertificates(client, ns,
                serviceNames(service, ns, clusterDomain),
                opts.getOrDefault("webhook-config", "strait-sidecar-injector"), Clock.systemUTC());
        // The sidecars' /tmp is sized for the budget the snapshots give every proxy: one flag sets both.
        SidecarInjector injector = new SidecarInjector(SidecarInjector.Settings.defaults(
                opts.getOrDefault("sidecar-image", "ghcr.io/strait-dev/strait-proxy:0.1.0"))
                .withRequestBodyFilesMaxBytes(requestBodyFilesMaxBytes));
        WebhookServer server = new WebhookServer(new AdmissionHandler(injector), certs.refresh())
                .start(new InetSocketAddress(at.host(), at.port()));
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "strait-webhook-certificates");
            t.setDaemon(true);
            return t;
        });
        // Once a minute (two reads when nothing changed): the webhook configuration may be created after
        // the operator started, and it needs the caBundle before any pod can be injected.
        timer.scheduleAtFixedRate(() -> {
            try {
                server.certificate(certs.refresh());
            } catch (IOException | RuntimeException e) {
                log.warn("webhook certificate not refreshed: {}", e.toString());
            }
        }, 1, 1, TimeUnit.MINUTES);
        return server;
    }

    private static String namespace(KubernetesClient client) throws IOException {
        if (Files.isReadable(SERVICE_ACCOUNT_NAMESPACE)) {
            return Files.readString(SERVICE_ACCOUNT_NAMESPACE, StandardCharsets.UTF_8).trim();
        }
        return client.getNamespace() == null ? "default" : client.getNamespace();
    }

    /**
     * The names a certificate of the operator's Service {@code service} in {@code ns} carries: as the proxies and the
     * API server dial it ({@code NAME.NS.svc}), in full in the cluster domain, and the loopback for a port-forward.
     */
    static List<String> serviceNames(String service, String ns, String clusterDomain) {
        String name = service + "." + ns + ".svc";
        return List.of(name, name + "." + clusterDomain, "localhost", "127.0.0.1");
    }

    /** RFC 1123 labels, as kubelet's cluster domain and every DNS name of the cluster are written. */
    private static final java.util.regex.Pattern DNS_LABEL =
            java.util.regex.Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    /**
     * {@code --cluster-domain}: the cluster's DNS domain, lower-case ({@code cluster.local} when not given). It must be
     * written as kubelet's {@code --cluster-domain} is, DNS labels without a leading or trailing dot: a misspelt domain
     * is refused rather than make every Service name written in the right one read as outside the cluster.
     */
    static String clusterDomain(String value) {
        if (value == null) {
            return ProxyDefaults.STANDARD.clusterDomain();
        }
        String domain = value.trim().toLowerCase(java.util.Locale.ROOT);
        String why = null;
        if (domain.isEmpty()) {
            why = "is empty";
        } else if (domain.startsWith(".") || domain.endsWith(".")) {
            why = "has a leading or trailing dot; write the domain alone, e.g. corp.internal";
        } else if (domain.length() > 253) {
            why = "is longer than 253 characters";
        } else {
            for (String label : domain.split("\\.", -1)) {
                if (!DNS_LABEL.matcher(label).matches()) {
                    why = label.isEmpty() ? "has an empty label" : "has \"" + label + "\", which is no DNS label"
                            + " (1 to 63 of a-z, 0-9 and '-', neither first nor last)";
                    break;
                }
            }
        }
        if (why != null) {
            throw new IllegalArgumentException("--cluster-domain \"" + value + "\" is not a DNS domain: it " + why);
        }
        return domain;
    }

    /** {@code --proxy-trusted-peers}: a comma-separated list of addresses and CIDR blocks, or none. */
    static Config.ForwardedHeaders trustedPeers(String list) {
        if (list == null || list.isBlank()) {
            return Config.ForwardedHeaders.DEFAULTS;
        }
        List<IpBlock> blocks = new java.util.ArrayList<>();
        for (String s : list.split(",")) {
            if (!s.isBlank()) {
                blocks.add(IpBlock.parse(s.trim()));
            }
        }
        return new Config.ForwardedHeaders(blocks);
    }

    /**
     * {@code --proxy-request-body-files-max-bytes}: the request body files of every proxy the operator programs, a
     * whole number of bytes, 0 or more (0: no files); not given, the proxies' defaults (256 MiB), which the snapshots
     * then leave out, so existing installs keep their config versions. The directory is always the proxies' own
     * ({@code /tmp}): that is the volume the chart and the sidecar injector size from the same number. Sizes such as
     * {@code 256Mi} are refused rather than guessed at: the chart passes bytes.
     */
    static Config.RequestBodyFiles requestBodyFiles(String value) {
        if (value == null) {
            return Config.RequestBodyFiles.DEFAULTS;
        }
        String v = value.trim();
        long max = -1;
        if (v.matches("[0-9]{1,19}")) {
            try {
                max = Long.parseLong(v);
            } catch (NumberFormatException e) {
                max = -1; // past Long.MAX_VALUE
            }
        }
        if (max < 0) {
            throw new IllegalArgumentException("must be a whole number of bytes, 0 or more (0: no files), got \""
                    + value + "\"");
        }
        return new Config.RequestBodyFiles(null, max);
    }

    /**
     * The option {@code name} (or {@code dflt} when it is not given) read by {@code parse}; what {@code parse} refuses
     * comes back as an error naming the flag: {@code --proxy-trusted-peers: "lb.internal" is not an IP address ...}.
     */
    static <T> T flag(Map<String, String> opts, String name, String dflt, java.util.function.Function<String, T> parse) {
        try {
            return parse.apply(opts.getOrDefault(name, dflt));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--" + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@code --proxy-protocol}: true or false, nothing else. A misspelt value is refused rather than read as
     * false: the proxies would then take the balancer's header for the request's first bytes.
     */
    static boolean proxyProtocol(String value) {
        return trueOrFalse(value);
    }

    /** {@code --proxy-tls-min-version}: 1.2 or 1.3 ({@code TLSv1.3} too); 1.0 and 1.1 are never spoken (RFC 8996). */
    static dev.strait.model.Config.TlsVersion tlsMinVersion(String value) {
        dev.strait.model.Config.TlsVersion v = dev.strait.model.Config.TlsVersion.of(value);
        if (v == null) {
            throw new IllegalArgumentException("must be 1.2 or 1.3, got \"" + value + "\"");
        }
        return v;
    }

    /**
     * {@code --proxy-tls-ciphers}: suites separated by colons (or commas), OpenSSL or IANA names, checked as a
     * listener's {@code ciphers} are; their IANA names, or null when absent.
     */
    static List<String> tlsCiphers(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>();
        for (String name : value.split("[:,]")) {
            if (name.isBlank()) {
                continue;
            }
            String iana = dev.strait.model.TlsCiphers.ianaName(name);
            if (iana == null) {
                throw new IllegalArgumentException("\"" + name.trim() + "\" is not a suite Strait speaks: one of "
                        + dev.strait.model.TlsCiphers.names());
            }
            out.add(iana);
        }
        if (out.stream().allMatch(dev.strait.model.TlsCiphers::cbc)) {
            throw new IllegalArgumentException("has no AEAD suite (GCM or CHACHA20-POLY1305): HTTP/2 clients on TLS 1.2"
                    + " need one (RFC 9113 9.2.2)");
        }
        return List.copyOf(out);
    }

    /** Refuses TLS 1.2 suites for proxies that speak TLS 1.3 only: the proxies would refuse every snapshot. */
    static ProxyDefaults tlsChecked(ProxyDefaults d) {
        if (d.tlsMinVersion() == dev.strait.model.Config.TlsVersion.TLS_1_3 && !d.tlsCiphers().isEmpty()) {
            throw new IllegalArgumentException("--proxy-tls-ciphers: chooses TLS 1.2's suites, and"
                    + " --proxy-tls-min-version 1.3 speaks no TLS 1.2: leave one of the two out");
        }
        return d;
    }

    /** A flag that is true or false (any case), false when absent; anything else is refused, not read as false. */
    static boolean trueOrFalse(String value) {
        if (value == null || value.isBlank()) {
            return false;
        }
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("\"" + value + "\" is neither true nor false");
        };
    }

    /** The {@code --proxy-tracing-*} flags but the endpoint, by the field of the config's {@code tracing} each sets. */
    private static final Map<String, String> TRACING_SETTINGS = Map.of("percent", "proxy-tracing-percent",
            "serviceName", "proxy-tracing-service-name", "trustIncoming", "proxy-tracing-trust-incoming",
            "protocol", "proxy-tracing-protocol", "upstreamSpans", "proxy-tracing-upstream-spans");

    /**
     * {@code --proxy-tracing-*}: the {@code tracing} section every snapshot carries, or null without an endpoint (the
     * other flags alone are refused: they would do nothing). The values are checked by the config parser, as the
     * proxies will read them, so a value the operator takes is one every proxy takes; an error names its flag.
     */
    static Config.Tracing tracing(Map<String, String> opts) {
        String endpoint = opts.get("proxy-tracing-endpoint");
        if (endpoint == null || endpoint.isBlank()) {
            for (String flag : new java.util.TreeSet<>(TRACING_SETTINGS.values())) {
                if (opts.containsKey(flag)) {
                    throw new IllegalArgumentException("--" + flag + " needs --proxy-tracing-endpoint: without a"
                            + " collector to send spans to there is no tracing for it to set");
                }
            }
            return null;
        }
        ObjectNode t = JsonNodeFactory.instance.objectNode();
        t.put("endpoint", endpoint.trim());
        String percent = opts.get("proxy-tracing-percent");
        if (percent != null) {
            try {
                t.put("percent", new java.math.BigDecimal(percent.trim()));
            } catch (NumberFormatException e) {
                t.put("percent", percent); // not a number: the parser says what it must be
            }
        }
        if (opts.containsKey("proxy-tracing-service-name")) {
            t.put("serviceName", opts.get("proxy-tracing-service-name"));
        }
        if (opts.containsKey("proxy-tracing-protocol")) {
            t.put("protocol", opts.get("proxy-tracing-protocol").trim());
        }
        List<String> problems = new java.util.ArrayList<>();
        String spans = opts.get("proxy-tracing-upstream-spans");
        if (spans != null) {
            // true or false, nothing else: the parser's YAML spellings (yes, on, no, off) are not taken from a flag,
            // as --proxy-protocol; the refusal is worded as the parser's.
            switch (spans.trim().toLowerCase(java.util.Locale.ROOT)) {
                case "true" -> t.put("upstreamSpans", true);
                case "false" -> t.put("upstreamSpans", false);
                default -> problems.add("--proxy-tracing-upstream-spans: must be true or false, got \"" + spans + "\"");
            }
        }
        String trust = opts.get("proxy-tracing-trust-incoming");
        if (trust != null) {
            String v = trust.trim().toLowerCase(java.util.Locale.ROOT);
            if (v.equals("true") || v.equals("false")) {
                t.put("trustIncoming", v.equals("true"));
            } else if (!trust.contains(",") && !isIpBlock(trust.trim())) {
                t.put("trustIncoming", trust); // neither a boolean nor an address: the parser says what it must be
            } else {
                ArrayNode peers = t.putArray("trustIncoming");
                for (String s : trust.split(",")) {
                    if (!s.isBlank()) {
                        peers.add(s.trim());
                    }
                }
            }
        }
        // The parser reads whole configs, and a config has a listener; only the tracing section is taken.
        ObjectNode config = JsonNodeFactory.instance.objectNode();
        config.putArray("listeners").addObject().put("name", ProxyDefaults.HTTP)
                .put("address", ProxyDefaults.STANDARD.http().toString());
        config.set("tracing", t);
        Config.Tracing tracing = null;
        try {
            tracing = ConfigParser.parse(config, "--proxy-tracing-*").tracing();
        } catch (InvalidConfigException e) {
            for (ConfigError error : e.errors()) {
                String field = error.path().replaceFirst("^tracing\\.", "").replaceFirst("\\[.*", "");
                String flag = field.equals("endpoint") ? "proxy-tracing-endpoint" : TRACING_SETTINGS.get(field);
                problems.add((flag == null ? error.path() : "--" + flag) + ": " + error.message());
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
        return tracing;
    }

    /** The {@code --ingress-compression-*} flags, by the field of a rule's {@code compression} each sets. */
    private static final Map<String, String> COMPRESSION_SETTINGS = Map.of("level", "ingress-compression-level",
            "minBytes", "ingress-compression-min-bytes", "types", "ingress-compression-types",
            "codings", "ingress-compression-codings");

    /**
     * {@code --ingress-compression*}: the {@code compression} every backend rule made from an Ingress gets, or null when
     * {@code --ingress-compression} is not true (the other flags alone are refused: they would do nothing). ingress-nginx
     * sets it for the whole controller in its ConfigMap ({@code use-gzip}, {@code gzip-level}, {@code gzip-min-length},
     * {@code gzip-types}, {@code enable-brotli}), not per Ingress. The values are checked by the config parser as a
     * rule's {@code compression}, so a value the operator takes is one every proxy takes; an error names its flag.
     */
    static dev.strait.model.Route.Compression ingressCompression(Map<String, String> opts) {
        if (!flag(opts, "ingress-compression", null, Main::trueOrFalse)) {
            for (String flag : new java.util.TreeSet<>(COMPRESSION_SETTINGS.values())) {
                if (opts.containsKey(flag)) {
                    throw new IllegalArgumentException("--" + flag + " needs --ingress-compression true: without it"
                            + " no Ingress's answers are compressed, so there is nothing for it to set");
                }
            }
            return null;
        }
        ObjectNode c = JsonNodeFactory.instance.objectNode();
        String level = opts.get("ingress-compression-level");
        if (level != null) {
            try {
                c.put("level", Integer.parseInt(level.trim()));
            } catch (NumberFormatException e) {
                c.put("level", level); // not a whole number: the parser says what it must be
            }
        }
        String min = opts.get("ingress-compression-min-bytes");
        if (min != null) {
            try {
                c.put("minBytes", Long.parseLong(min.trim()));
            } catch (NumberFormatException e) {
                c.put("minBytes", min);
            }
        }
        for (String listed : List.of("types", "codings")) {
            String value = opts.get(COMPRESSION_SETTINGS.get(listed));
            if (value != null) {
                ArrayNode list = c.putArray(listed);
                for (String t : value.split(",")) {
                    if (!t.isBlank()) {
                        list.add(t.trim());
                    }
                }
            }
        }
        // The parser reads whole configs: a listener, and a route whose one rule has the compression.
        ObjectNode config = JsonNodeFactory.instance.objectNode();
        config.putArray("listeners").addObject().put("name", ProxyDefaults.HTTP)
                .put("address", ProxyDefaults.STANDARD.http().toString());
        ObjectNode route = config.putArray("routes").addObject().put("name", "ingress");
        route.putArray("hosts").add("*");
        ObjectNode rule = route.putArray("rules").addObject();
        rule.putObject("respond").put("status", 200);
        rule.set("compression", c);
        try {
            return ConfigParser.parse(config, "--ingress-compression-*").routes().get(0).rules().get(0).compression();
        } catch (InvalidConfigException e) {
            List<String> problems = new java.util.ArrayList<>();
            for (ConfigError error : e.errors()) {
                String field = error.path().replaceFirst("^.*\\.compression\\.?", "").replaceFirst("\\[.*", "");
                String flag = COMPRESSION_SETTINGS.get(field);
                problems.add((flag == null ? error.path() : "--" + flag) + ": " + error.message());
            }
            throw new IllegalArgumentException(String.join("\n", problems));
        }
    }

    /** {@code --ingress-hsts} when not given: ingress-nginx's default, so a migration keeps what browsers were told. */
    static final String INGRESS_HSTS = "max-age=31536000; includeSubDomains";

    /** The directives of a {@code Strict-Transport-Security} value, by the field of a route's {@code hsts} each sets. */
    private static final Map<String, String> HSTS_DIRECTIVES = Map.of("max-age", "maxAgeSeconds",
            "includesubdomains", "includeSubDomains", "preload", "preload");

    /**
     * {@code --ingress-hsts} ({@link #INGRESS_HSTS} when not given): the {@code hsts} of every Route made from an
     * Ingress for a host with TLS, or null for {@code off}; a refused value is an error naming the flag.
     */
    static dev.strait.model.Route.Hsts ingressHsts(Map<String, String> opts) {
        return flag(opts, "ingress-hsts", INGRESS_HSTS, Main::hsts);
    }

    /**
     * A {@code Strict-Transport-Security} value, or {@code off}, as a route's {@code hsts} (null for off).
     * ingress-nginx sets it for the whole controller in its ConfigMap ({@code hsts}, {@code hsts-max-age},
     * {@code hsts-include-subdomains}, {@code hsts-preload}), on by default. The value is written as the field is
     * (RFC 6797 6.1: directive names in any case and order, each once, {@code max-age} required); what it says is
     * checked by the config parser as a route's {@code hsts} (preload needs includeSubDomains and a year), so a value
     * the operator takes is one every proxy takes.
     */
    static dev.strait.model.Route.Hsts hsts(String value) {
        String v = value == null ? "" : value.trim();
        if (v.equalsIgnoreCase("off")) {
            return null;
        }
        ObjectNode h = JsonNodeFactory.instance.objectNode();
        Map<String, String> written = new java.util.HashMap<>();
        for (String part : v.split(";", -1)) {
            String directive = part.trim();
            if (directive.isEmpty()) {
                continue; // the field's grammar allows empty directives: "max-age=60;"
            }
            int eq = directive.indexOf('=');
            String name = (eq < 0 ? directive : directive.substring(0, eq)).trim();
            String field = HSTS_DIRECTIVES.get(name.toLowerCase(java.util.Locale.ROOT));
            if (field == null) {
                throw new IllegalArgumentException("\"" + directive + "\" is no directive of Strict-Transport-Security:"
                        + " expected max-age=N, includeSubDomains or preload (or off for none)");
            }
            if (written.putIfAbsent(field, name) != null) {
                throw new IllegalArgumentException(name + " is given twice (browsers would ignore the field)");
            }
            String arg = eq < 0 ? null : directive.substring(eq + 1).trim();
            if (!field.equals("maxAgeSeconds")) {
                if (arg != null) {
                    throw new IllegalArgumentException(name + " takes no value, got \"" + directive + "\"");
                }
                h.put(field, true);
            } else if (arg == null) {
                throw new IllegalArgumentException("max-age needs a number of seconds: max-age=31536000");
            } else {
                if (arg.length() > 1 && arg.startsWith("\"") && arg.endsWith("\"")) {
                    arg = arg.substring(1, arg.length() - 1); // the quoted form RFC 6797 allows
                }
                if (arg.matches("-?[0-9]{1,18}")) {
                    h.put(field, Long.parseLong(arg));
                } else {
                    h.put(field, arg); // not a whole number of seconds: the parser says what it must be
                }
            }
        }
        if (!h.has("maxAgeSeconds")) {
            throw new IllegalArgumentException("must be off or a Strict-Transport-Security value with max-age, such as \""
                    + INGRESS_HSTS + "\", got \"" + v + "\"");
        }
        // The parser reads whole configs: a listener, and a route with the hsts.
        ObjectNode config = JsonNodeFactory.instance.objectNode();
        config.putArray("listeners").addObject().put("name", ProxyDefaults.HTTP)
                .put("address", ProxyDefaults.STANDARD.http().toString());
        ObjectNode route = config.putArray("routes").addObject().put("name", "ingress");
        route.putArray("hosts").add("*");
        route.putArray("rules").addObject().putObject("respond").put("status", 200);
        route.set("hsts", h);
        try {
            return ConfigParser.parse(config, "--ingress-hsts").routes().get(0).hsts();
        } catch (InvalidConfigException e) {
            List<String> problems = new java.util.ArrayList<>();
            for (ConfigError error : e.errors()) {
                String field = error.path().replaceFirst("^.*\\.hsts\\.?", "");
                problems.add(written.getOrDefault(field, error.path()) + " " + error.message());
            }
            throw new IllegalArgumentException(String.join("; ", problems));
        }
    }

    /**
     * {@code --default-ssl-certificate NAMESPACE/NAME}, ingress-nginx's flag: the controller's own certificate, or null
     * when not given (or given empty, as ingress-nginx's default is); a value that is no such name is refused, naming
     * the flag.
     */
    static ProxyDefaults.SecretRef defaultCertificate(Map<String, String> opts) {
        return flag(opts, "default-ssl-certificate", null,
                v -> v == null || v.isBlank() ? null : ProxyDefaults.SecretRef.parse(v));
    }

    private static boolean isIpBlock(String s) {
        try {
            IpBlock.parse(s);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Flags, then environment variables for flags not given; {@code null} after printing a usage error. */
    static Map<String, String> options(String[] args) {
        return Flags.parse(args, List.of("control-address", "leader-election", "secure", "control-names", "cluster-domain",
                "ingress-address", "webhook-address", "webhook-config", "webhook-service", "sidecar-image",
                "proxy-http-address", "proxy-https-address", "proxy-admin-address", "proxy-trusted-peers",
                "proxy-protocol", "proxy-ocsp-stapling", "proxy-tls-min-version", "proxy-tls-ciphers", "proxy-tracing-endpoint", "proxy-tracing-percent", "proxy-tracing-service-name",
                "proxy-tracing-trust-incoming", "proxy-tracing-protocol", "proxy-tracing-upstream-spans",
                "ingress-compression", "ingress-compression-level",
                "ingress-compression-min-bytes", "ingress-compression-types", "ingress-compression-codings", "ingress-hsts",
                "default-ssl-certificate", "proxy-request-body-files-max-bytes",
                "server-side-apply"), USAGE);
    }
}
