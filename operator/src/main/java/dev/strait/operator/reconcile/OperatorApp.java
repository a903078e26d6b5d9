package dev.strait.operator.reconcile;

import dev.strait.operator.publish.Authenticator;
import dev.strait.operator.publish.ControlServer;
import dev.strait.operator.publish.Fleet;
import dev.strait.operator.status.StatusBoard;
import dev.strait.operator.translate.ProxyDefaults;
import dev.strait.operator.translate.Translator;
import io.fabric8.kubernetes.api.model.networking.v1.IngressLoadBalancerIngress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The whole operator wired together; see the package documentation for the loop. */
public final class OperatorApp implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OperatorApp.class);

    /**
     * @param serverSideApply      patch status with server-side apply (production); off against fabric8's mock server
     * @param secretFieldSelector  let the API server filter Secrets to {@code kubernetes.io/tls}; off against the mock
     * @param leaderElection       only the lease holder writes status; null to write from this replica
     * @param ssl                  TLS for the control channel, asked for per connection; null for plain TCP
     */
    public record Settings(InetSocketAddress controlAddress, ProxyDefaults defaults, Duration quiet, Duration cap,
                           boolean serverSideApply, boolean secretFieldSelector,
                           LeaderElectionConfiguration leaderElection, Supplier<SslContext> ssl,
                           Authenticator authenticator, IngressAddress ingressAddress) {

        public Settings(InetSocketAddress controlAddress, ProxyDefaults defaults, Duration quiet, Duration cap,
                        boolean serverSideApply, boolean secretFieldSelector,
                        LeaderElectionConfiguration leaderElection, Supplier<SslContext> ssl,
                        Authenticator authenticator) {
            this(controlAddress, defaults, quiet, cap, serverSideApply, secretFieldSelector, leaderElection, ssl,
                    authenticator, new IngressAddress(null));
        }

        public static Settings production(InetSocketAddress controlAddress) {
            return new Settings(controlAddress, ProxyDefaults.STANDARD, Duration.ofMillis(100), Duration.ofSeconds(1),
                    true, true, null, null, Authenticator.OPEN);
        }

        public Settings withLeaderElection(LeaderElectionConfiguration le) {
            return new Settings(controlAddress, defaults, quiet, cap, serverSideApply, secretFieldSelector, le, ssl,
                    authenticator, ingressAddress);
        }

        public Settings withSecurity(Supplier<SslContext> tls, Authenticator auth) {
            return new Settings(controlAddress, defaults, quiet, cap, serverSideApply, secretFieldSelector,
                    leaderElection, tls, auth, ingressAddress);
        }

        /** What snapshots carry besides routes: the proxies' listener and admin addresses. */
        public Settings withDefaults(ProxyDefaults d) {
            return new Settings(controlAddress, d, quiet, cap, serverSideApply, secretFieldSelector,
                    leaderElection, ssl, authenticator, ingressAddress);
        }

        /**
         * For API servers without server-side apply or field selectors (fabric8's mock server): status is
         * patched without SSA and TLS Secrets are filtered in the operator.
         */
        public Settings withoutServerSideApply() {
            return new Settings(controlAddress, defaults, quiet, cap, false, false,
                    leaderElection, ssl, authenticator, ingressAddress);
        }

        /** @param address see {@link IngressAddress}: fixed addresses or NAMESPACE/SERVICE */
        public Settings withIngressAddress(String address) {
            return new Settings(controlAddress, defaults, quiet, cap, serverSideApply, secretFieldSelector,
                    leaderElection, ssl, authenticator, new IngressAddress(address));
        }
    }

    private final KubernetesClient client;
    private final Settings settings;
    private final Fleet fleet;
    private final StatusBoard board;
    private final ControlServer server;
    private Operator operator;
    private final List<StatusReconciler<?>> statusReconcilers = new ArrayList<>();
    private ClusterCache cache;
    private Rebuilder rebuilder;
    private Debounced statusRefresh;
    private FleetReports fleetReports;
    private EventRecorder events;
    private IngressReconciler ingresses;
    private volatile List<IngressLoadBalancerIngress> lastIngressAddress = List.of();
    /** {@code -Dstrait.operator.warmUpIterations=0} turns the warm-up off (ADR 0030: it holds a second translator's memos meanwhile). */
    private int warmUpIterations = Integer.getInteger("strait.operator.warmUpIterations", WarmUp.ITERATIONS);
    /** Proxy counts alone are written once a minute (StatusBoard.refresh). */
    private final ScheduledExecutorService countsTimer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "strait-status-counts");
        t.setDaemon(true);
        return t;
    });

    public OperatorApp(KubernetesClient client, Settings settings) {
        this.client = client;
        this.settings = settings;
        this.fleet = new Fleet(settings.defaults());
        this.board = new StatusBoard(fleet);
        this.server = new ControlServer(fleet, settings.ssl(), settings.authenticator());
    }

    public OperatorApp start() throws InterruptedException {
        server.start(settings.controlAddress());
        log.info("control channel listening on {}", server.address());

        operator = new Operator(o -> {
            o.withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    .withUseSSAToPatchPrimaryResource(settings.serverSideApply())
                    .withSSABasedCreateUpdateMatchForDependentResources(settings.serverSideApply());
            if (settings.leaderElection() != null) {
                o.withLeaderElectionConfiguration(settings.leaderElection());
            }
        });
        Clock clock = Clock.systemUTC();
        // Events about refused and degraded resources, written by the leader's reconcilers (ADR 0056).
        events = new EventRecorder(client, settings.leaderElection() == null ? hostname()
                : settings.leaderElection().getIdentity().orElseGet(OperatorApp::hostname), clock);
        RouteReconciler routes = new RouteReconciler(board, clock, events);
        UpstreamReconciler upstreams = new UpstreamReconciler(board, clock, events);
        IngressReconciler ingresses = new IngressReconciler(board, this::ingressAddresses, events);
        this.ingresses = ingresses;
        statusReconcilers.add(routes);
        statusReconcilers.add(upstreams);
        operator.register(routes);
        operator.register(upstreams);
        operator.register(ingresses);
        operator.start();
        board.onChange(key -> {
            switch (key.kind()) {
                case "Route" -> routes.poke(key);
                case "Ingress" -> ingresses.poke(key);
                default -> upstreams.poke(key);
            }
        });

        // ACKs arrive proxy by proxy, and each changes the counts of every Route of the scope: refresh
        // status five times less often than the table is rebuilt, so a fleet's ACKs for one version cost
        // one round of status writes rather than one per proxy.
        statusRefresh = new Debounced("strait-status", settings.quiet().multipliedBy(5), settings.cap().multipliedBy(5),
                board::refresh);
        fleet.onChange(statusRefresh::changed);
        countsTimer.scheduleAtFixedRate(statusRefresh::changed, 60, 60, TimeUnit.SECONDS);
        if (settings.leaderElection() != null) {
            // Several replicas: each tells the others about its proxies, so the leader counts them all.
            var le = settings.leaderElection();
            fleetReports = new FleetReports(client, le.getLeaseNamespace().orElse("default"),
                    le.getIdentity().orElseGet(OperatorApp::hostname), fleet, board, statusRefresh::changed)
                    .start(Duration.ofSeconds(2));
        }
        Translator translator = new Translator(settings.defaults());
        cache = new ClusterCache(client, this::changed, settings.secretFieldSelector(), settings.defaults().defaultClass());
        // What proxies refused is an input too: such a Route is left out until it changes (ADR 0050).
        fleet.onRejection(this::changed);
        rebuilder = new Rebuilder(() -> cache.synced() ? cache.inputs().withRejected(fleet.rejected()) : null,
                translator, t -> {
            fleet.publish(t);
            board.update(t);
            if (events.remembered() > t.allReports().size()) {
                events.retain(k -> t.report(k) != null); // some resources are gone
            }
            statusRefresh.changed(); // computed and written within the status debounce, off this thread
            // The proxies' address lives on a Service: when it moves, every served Ingress is rewritten.
            List<IngressLoadBalancerIngress> address = ingressAddresses();
            if (!address.equals(lastIngressAddress)) {
                lastIngressAddress = address;
                t.reports().keySet().stream().filter(k -> k.kind().equals("Ingress")).forEach(ingresses::poke);
            }
        }, settings.quiet(), settings.cap(), warmUpIterations);
        cache.start();
        log.info("caches synced; serving snapshots");
        return this;
    }

    /** Throwaway iterations of the per-change path after start-up (ADR 0030); for tests, before {@link #start}. */
    OperatorApp warmUpIterations(int iterations) {
        this.warmUpIterations = iterations;
        return this;
    }

    WarmUp warmUp() {
        return rebuilder.warmUp();
    }

    private List<IngressLoadBalancerIngress> ingressAddresses() {
        ClusterCache c = cache;
        return c == null ? List.of() : settings.ingressAddress().resolve(c.services());
    }

    private void changed() {
        Rebuilder r = rebuilder;
        if (r != null) {
            r.changed();
        }
    }

    public Fleet fleet() {
        return fleet;
    }

    public StatusBoard board() {
        return board;
    }

    public InetSocketAddress controlAddress() {
        return server.address();
    }

    /** Route and Upstream status patches asked for since start. */
    public long statusWrites() {
        return statusReconcilers.stream().mapToLong(StatusReconciler::writes).sum();
    }

    /** The Events this replica writes (for tests). */
    EventRecorder events() {
        return events;
    }

    /** Ingress reconciliations finished so far (for tests). */
    long ingressReconciles() {
        return ingresses == null ? 0 : ingresses.reconciles();
    }

    public long rebuilds() {
        return rebuilder == null ? 0 : rebuilder.rebuilds();
    }

    private static String hostname() {
        String h = System.getenv("HOSTNAME");
        if (h != null && !h.isBlank()) {
            return h;
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "strait-operator-" + ProcessHandle.current().pid();
        }
    }

    @Override
    public void close() {
        if (fleetReports != null) {
            fleetReports.close();
        }
        if (cache != null) {
            cache.close();
        }
        if (rebuilder != null) {
            rebuilder.close();
        }
        countsTimer.shutdownNow();
        if (statusRefresh != null) {
            statusRefresh.close();
        }
        if (operator != null) {
            operator.stop();
        }
        if (events != null) {
            events.close();
        }
        server.close();
    }
}
