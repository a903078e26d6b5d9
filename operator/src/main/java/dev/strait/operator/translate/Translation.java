package dev.strait.operator.translate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.model.Config;
import dev.strait.model.ConfigWriter;
import dev.strait.model.Route;
import dev.strait.model.Upstream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The result of one translation: for every scope the Routes it serves (oldest first, the Ingresses'
 * defaultBackends last) and the Upstreams
 * they use, and a report for every Route and Upstream. Immutable; snapshots are made on demand, once
 * per scope.
 */
public final class Translation {
    /**
     * A Route as it goes into snapshots: after conflicts, with the upstreams and certificate it needs, and the client
     * certificates its hosts ask for on the https listener (null for none; its {@code hosts} are the Route's).
     */
    record Programmed(Route route, Set<String> upstreams, Config.Certificate certificate,
                      Config.ClientValidation clientValidation) {}

    private final ProxyDefaults defaults;
    private final SortedMap<Scope, List<Programmed>> routes;
    private final Map<String, Upstream> upstreams;
    /** By key, unordered: looked up per resource on every publication, so a hash map (ADR 0025). */
    private final Map<ResourceKey, ResourceReport> reports;
    private volatile SortedMap<ResourceKey, ResourceReport> sortedReports;
    private final Map<ResourceKey, Integer> contents;
    private final Map<Scope, Snapshot> snapshots = new ConcurrentHashMap<>();
    private final Map<Scope, ConfigWriter.Memo> writers;
    /** The operator's {@code --default-ssl-certificate} as this translation found it (ADR 0096). */
    private final DefaultCertificate defaultCertificate;

    /**
     * A scope's snapshot, its content version and its canonical JSON (what the version hashes, what is
     * sent). {@code tree} is that JSON as the tree it was written from, for deltas (read only: it is shared).
     */
    public record Snapshot(Config config, String version, String json, ObjectNode tree) {}

    /**
     * @param writers per scope, what writing its snapshots last time made, shared with later translations
     *                (the same Routes are written once); a scope without one gets one
     * @param defaultCertificate the operator's default certificate: first on the ingress proxies' https listener when
     *                it can be used
     */
    Translation(ProxyDefaults defaults, Map<Scope, List<Programmed>> routes, Map<String, Upstream> upstreams,
                Map<ResourceKey, ResourceReport> reports, Map<ResourceKey, Integer> contents,
                Map<Scope, ConfigWriter.Memo> writers, DefaultCertificate defaultCertificate) {
        this.writers = writers;
        this.defaultCertificate = defaultCertificate;
        // The translator's own maps, not copies: it makes new ones for each translation (10k entries each).
        this.contents = Collections.unmodifiableMap(contents);
        this.defaults = defaults;
        TreeMap<Scope, List<Programmed>> r = new TreeMap<>();
        routes.forEach((k, v) -> r.put(k, List.copyOf(v)));
        this.routes = Collections.unmodifiableSortedMap(r);
        this.upstreams = Map.copyOf(upstreams);
        this.reports = Collections.unmodifiableMap(reports);
    }

    /** Without a default certificate. */
    Translation(ProxyDefaults defaults, Map<Scope, List<Programmed>> routes, Map<String, Upstream> upstreams,
                Map<ResourceKey, ResourceReport> reports, Map<ResourceKey, Integer> contents,
                Map<Scope, ConfigWriter.Memo> writers) {
        this(defaults, routes, upstreams, reports, contents, writers, DefaultCertificate.NONE);
    }

    /** Scopes that have at least one Route. */
    public Set<Scope> scopes() {
        return routes.keySet();
    }

    /** Every report, sorted by key (made on first use: most callers want {@link #allReports} or {@link #report}). */
    public SortedMap<ResourceKey, ResourceReport> reports() {
        SortedMap<ResourceKey, ResourceReport> s = sortedReports;
        if (s == null) {
            s = Collections.unmodifiableSortedMap(new TreeMap<>(reports));
            sortedReports = s;
        }
        return s;
    }

    /** Every report, in no particular order. */
    public java.util.Collection<ResourceReport> allReports() {
        return reports.values();
    }

    public ResourceReport report(ResourceKey key) {
        return reports.get(key);
    }

    /**
     * A hash of what a resource contributes to snapshots (a Route after conflicts, an Upstream with its
     * endpoints), 0 when it contributes nothing: when it changes, the resource needs programming again.
     * Stable within one process only.
     */
    public int content(ResourceKey key) {
        return contents.getOrDefault(key, 0);
    }

    public ProxyDefaults defaults() {
        return defaults;
    }

    /**
     * Why the operator's {@code --default-ssl-certificate} cannot be used now, naming the flag and its Secret; null
     * when it can, or when the operator has none. The same text for as long as the problem stays (logged on a change).
     */
    public String defaultCertificateProblem() {
        return defaultCertificate.secret() == null ? null : defaultCertificate.problem();
    }

    /** The snapshot for a scope; a scope without Routes gets one with no routes. */
    public Snapshot snapshot(Scope scope) {
        return snapshots.computeIfAbsent(scope, this::build);
    }

    private Snapshot build(Scope scope) {
        List<Programmed> programmed = routes.getOrDefault(scope, List.of());
        List<Route> rs = new ArrayList<>(programmed.size());
        TreeMap<String, Upstream> used = new TreeMap<>();
        // Sidecars take traffic from other pods, never from the load balancer in front of the ingress proxies.
        boolean ingressProxy = scope.namespace() == null;
        LinkedHashSet<Config.Certificate> certs = new LinkedHashSet<>();
        if (ingressProxy && defaultCertificate.usable()) {
            // First: the proxies answer with it for a name no certificate has and for clients without SNI, as
            // ingress-nginx does with its --default-ssl-certificate; it also serves the hosts that have no Secret.
            certs.add(defaultCertificate.certificate());
        }
        for (Programmed p : programmed) {
            if (p.certificate() != null) {
                certs.add(p.certificate());
            }
        }
        // The https listener serves the certificates of the scope's Routes (and an ingress proxy's default one), and
        // passes through the hosts of those with tlsPassthrough: with neither there is none. Without a certificate it
        // only passes through.
        boolean certified = !certs.isEmpty() && defaults.https() != null;
        boolean https = certified || (defaults.https() != null
                && programmed.stream().anyMatch(p -> p.route().tlsPassthrough() != null));
        // Oldest first, then the Ingresses' defaultBackends and www redirects (oldest first): the proxy merges a
        // host's Routes in this order, so those answer only what no other Route of the host matches (ADR 0056).
        List<Programmed> ordered = new ArrayList<>(programmed.size());
        List<Programmed> fallbacks = new ArrayList<>();
        for (Programmed p : programmed) {
            (IngressRoutes.yields(p.route().name()) ? fallbacks : ordered).add(p);
        }
        ordered.addAll(fallbacks);
        // One clientValidation entry per policy, with the hosts of every Route that asks it, in order.
        Map<Config.ClientValidation, LinkedHashSet<String>> policies = new LinkedHashMap<>();
        Map<String, Config.ClientValidation> policyOf = new HashMap<>();
        for (Programmed p : ordered) {
            Route r = p.route();
            Config.ClientValidation cv = p.clientValidation();
            if (cv != null) {
                if (!certified) {
                    continue; // nowhere to ask for its certificates, and never served without the check
                }
                Config.ClientValidation policy = cv.withHosts(List.of());
                // The translator has left out a Route whose policy for a host differs from an older one's; should
                // one get here, it is left out too: a proxy refuses a host in two entries, and serving it under
                // another policy than its own could let in whom it meant to keep out.
                if (cv.hosts().stream().anyMatch(h -> policyOf.containsKey(h) && !policyOf.get(h).equals(policy))) {
                    continue;
                }
                cv.hosts().forEach(h -> policyOf.put(h, policy));
                policies.computeIfAbsent(policy, k -> new LinkedHashSet<>()).addAll(cv.hosts());
            }
            if (!https && r.tlsPassthrough() != null) {
                continue; // no listener to pass through on (the translator has left these out and said so)
            }
            boolean ingress = r.name().contains(Translator.INGRESS_PIECE);
            if (!certified && ingress && r.name().endsWith(IngressRoutes.TO_HTTPS)) {
                continue; // an Ingress's ssl-redirect, to an https that has no certificate for it here
            }
            if (!certified && r.tlsPassthrough() == null && r.listeners() != null
                    && r.listeners().contains(ProxyDefaults.HTTPS)) {
                // No TLS listener in this snapshot (no Route of the scope has a usable certificate): the proxy
                // would refuse a Route naming it.
                if (r.listeners().size() > 1 || ingress) {
                    // The listeners that exist; an Ingress host whose certificate is missing keeps serving
                    // over plain HTTP, as without ssl-redirect (ADR 0049).
                    // hsts kept: the proxies send it only over https, here a trusted load balancer's X-Forwarded-Proto
                    r = new Route(r.name(), r.hosts(), r.rules(), ingress ? null : List.of(ProxyDefaults.HTTP), null,
                            r.hsts());
                } else {
                    continue; // a Route bound to https alone could be served nowhere
                }
            }
            rs.add(r);
            p.upstreams().forEach(u -> used.put(u, upstreams.get(u)));
        }
        boolean proxyProtocol = ingressProxy && defaults.proxyProtocol();
        List<Config.Listener> listeners = new ArrayList<>();
        listeners.add(new Config.Listener(ProxyDefaults.HTTP, defaults.http(), null, 0, proxyProtocol));
        if (https) {
            List<Config.ClientValidation> validation = new ArrayList<>(policies.size());
            policies.forEach((policy, hosts) -> validation.add(policy.withHosts(List.copyOf(hosts))));
            listeners.add(new Config.Listener(ProxyDefaults.HTTPS, defaults.https(),
                    new Config.Tls(List.copyOf(certs), validation, ingressProxy && defaults.ocspStapling(),
                            defaults.tlsMinVersion(), defaults.tlsCiphers()), 0,
                    proxyProtocol));
        }
        Config.ForwardedHeaders forwarded = ingressProxy ? defaults.forwardedHeaders()
                : Config.ForwardedHeaders.DEFAULTS;
        Config config = new Config(0, Config.Transport.AUTO, new Config.AccessLog(defaults.accessLog()),
                defaults.limits(), listeners, defaults.adminConfig(), List.copyOf(used.values()), rs,
                Config.RequestId.DEFAULTS, Config.CacheStore.DEFAULTS, forwarded, Config.Resolver.DEFAULTS,
                defaults.tracing(), defaults.requestBodyFiles());
        // Unchanged Routes and Upstreams are written once and are the same nodes in every snapshot's tree
        // (the delta's diff finds them equal by identity); the result is what ConfigWriter writes.
        ConfigWriter.Memo memo = writers.computeIfAbsent(scope, s -> new ConfigWriter.Memo());
        ConfigWriter.Written written = ConfigWriter.write(config, memo);
        return new Snapshot(config, ConfigWriter.versionOf(written.json()), written.json(), written.tree());
    }
}
