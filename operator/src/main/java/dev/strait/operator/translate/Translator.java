package dev.strait.operator.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.model.Config;
import dev.strait.model.Htpasswd;
import dev.strait.model.Upstream;
import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.RouteSpec;
import dev.strait.operator.crd.ServiceRef;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import java.util.TreeSet;

/** Resources in, one {@link Translation} out; see the package documentation for the steps. */
public final class Translator {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TLS_SECRET = "kubernetes.io/tls";
    /** Oldest first, then namespace/name: the precedence of conflicts and of the proxy's host merging. */
    static final Comparator<HasMetadata> AGE = Comparator
            .comparing((HasMetadata r) -> String.valueOf(r.getMetadata().getCreationTimestamp()))
            .thenComparing(r -> r.getMetadata().getNamespace())
            .thenComparing(r -> r.getMetadata().getName());

    private final ProxyDefaults defaults;
    /**
     * Parser results by their exact input, from the previous translation and this one: a Route whose
     * rewritten spec did not change is not parsed again (the parse is most of a rebuild's cost). Only
     * entries used by a translation survive into the next, so the memory follows the cluster.
     */
    private Map<String, Object> previousChecks = new HashMap<>();
    private Map<String, Object> checks = new HashMap<>();
    /** Each source's result in the last translation, for the next (see {@link SourceResult}). */
    private Map<ResourceKey, SourceResult> previousResults = new HashMap<>();
    private Map<ResourceKey, SourceResult> results = new HashMap<>();
    private final Conflicts.KeyCache claimKeys = new Conflicts.KeyCache();
    /** Each scope's conflicts as the last translation decided them, decided again only where needed (ADR 0028). */
    private final Map<Scope, Conflicts> conflicts = new HashMap<>();
    /** No translation finished since the owners were last consistent (none yet, or one failed): decide all again. */
    private boolean conflictsLost = true;
    private long reused;
    /** Each source's place in the last translation's order (see {@link #sources}). */
    private Map<ResourceKey, Integer> previousOrder = new HashMap<>();
    /** The last translation's inputs, to see whether any reference target changed. */
    private Inputs lastInputs;
    /**
     * Each source object's key from the last translation, by identity: an unchanged object keeps its key
     * instance, so the many map lookups by key find it by identity.
     */
    private IdentityHashMap<HasMetadata, ResourceKey> previousKeys = new IdentityHashMap<>();
    /** The JSON and nodes each scope's snapshots were written with, for the next (ADR 0025). */
    private final Map<Scope, dev.strait.model.ConfigWriter.Memo> writers = new java.util.concurrent.ConcurrentHashMap<>();

    /** Not thread-safe: one translation at a time (the rebuilder's thread). */
    public Translator(ProxyDefaults defaults) {
        this.defaults = defaults;
    }

    /** A translator with the same settings and none of this one's state (for throwaway translations). */
    public Translator fresh() {
        return new Translator(defaults);
    }

    @SuppressWarnings("unchecked")
    private <T> T memo(String key, java.util.function.Supplier<T> compute) {
        Object c = checks.get(key);
        if (c == null) {
            c = previousChecks.get(key);
            if (c == null) {
                c = compute.get();
            }
            checks.put(key, c);
        }
        return (T) c;
    }

    /** Sources whose previous result was reused, so far (for tests). */
    long reused() {
        return reused;
    }

    /** The model name of an Upstream resource: namespaces have no dots, so names cannot collide. */
    public static String upstreamName(String namespace, String name) {
        return "upstream." + namespace + "." + name;
    }

    /** The model name of the upstream made for a backend that names a Service and port. */
    public static String serviceUpstreamName(String namespace, String service, int port) {
        return "service." + namespace + "." + service + "." + port;
    }

    /** The same, spoken to with {@code protocol} ({@code null}: http1, the name above). */
    static String serviceUpstreamName(String namespace, String service, int port, String protocol) {
        String name = serviceUpstreamName(namespace, service, port);
        return protocol == null || protocol.equals("http1") ? name : name + "." + protocol;
    }

    /** The same, balanced as {@code balancing} says (see {@link ServiceBalancing}). */
    static String serviceUpstreamName(String namespace, String service, int port, String protocol,
                                      ServiceBalancing balancing) {
        return serviceUpstreamName(namespace, service, port, protocol) + balancing.nameSuffix();
    }

    /**
     * The upstream a Route's {@code tlsPassthrough} makes of a Service port: its endpoints get the client's TLS bytes
     * as they are, so it is always plain (no protocol from the port's {@code appProtocol}, no health check, no TLS of
     * its own), and apart from the port's HTTP upstreams, whose pools and failures are another matter.
     */
    static String passthroughUpstreamName(String namespace, String service, int port) {
        return serviceUpstreamName(namespace, service, port) + ".passthrough";
    }

    /**
     * The same, over {@code tls} ({@code null}, or the unchecked TLS of {@code https} and {@code h2}: the name above).
     * Other TLS (an Ingress's {@code proxy-ssl-*}) adds a digest of it, so that Ingresses that speak to one Service
     * with other CAs, names or client certificates never share an upstream (and its pooled connections); a digest
     * that cannot be steered, since whoever names a Service others name could otherwise choose the name of theirs.
     */
    static String serviceUpstreamName(String namespace, String service, int port, String protocol,
                                      ServiceBalancing balancing, Upstream.Tls tls) {
        String name = serviceUpstreamName(namespace, service, port, protocol, balancing);
        if (tls == null || tls.equals(Upstream.Tls.UNVERIFIED)) {
            return name;
        }
        String settings = (tls.verify() ? "verify" + tls.verifyDepth() : "unverified") + '\u0000' + tls.ca() + '\u0000' + tls.serverName()
                + '\u0000' + tls.cert() + '\u0000' + tls.key();
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(settings.getBytes(StandardCharsets.UTF_8));
            return name + ".tls-" + java.util.HexFormat.of().formatHex(digest, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JDK has SHA-256
        }
    }

    /**
     * Where a Service backend's requests go: the Service's cluster IP and port when asked, else its endpoints. An
     * ExternalName Service's name is its one endpoint either way: there is nothing for a cluster IP to balance.
     */
    private static List<dev.strait.model.HostPort> targets(ServiceEndpoints.Resolution res, ServiceBalancing balancing,
                                                          int port) {
        if (!balancing.clusterIp() || res.byName()) {
            return res.endpoints();
        }
        return res.clusterIp() == null ? List.of() : List.of(new dev.strait.model.HostPort(res.clusterIp(), port));
    }

    /**
     * The upstream made for a resolved Service backend, balanced and connected to as {@code balancing} says; an
     * ExternalName Service's name may not lead the proxy to a local address (ADR 0078's consent aside, its owner
     * would otherwise choose where the proxy connects: its admin port, the node's metadata service).
     */
    private static Upstream serviceUpstream(String model, ServiceEndpoints.Resolution res, String protocol,
                                            ServiceBalancing balancing, int port, Upstream.Tls tls) {
        return serviceUpstream(model, targets(res, balancing, port), protocol, balancing, res.byName(), tls);
    }

    /** The upstream made for a Service backend: its endpoints, spoken to with the backend's {@code protocol}. */
    static Upstream serviceUpstream(String model, List<dev.strait.model.HostPort> endpoints, String protocol) {
        return serviceUpstream(model, endpoints, protocol, ServiceBalancing.DEFAULT);
    }

    /** The same, balanced and connected to as {@code balancing} says. */
    static Upstream serviceUpstream(String model, List<dev.strait.model.HostPort> endpoints, String protocol,
                                    ServiceBalancing balancing) {
        return serviceUpstream(model, endpoints, protocol, balancing, false, null);
    }

    /** @param given the TLS of {@code https} and {@code h2}, null for the unchecked kind (ignored for other protocols) */
    private static Upstream serviceUpstream(String model, List<dev.strait.model.HostPort> endpoints, String protocol,
                                            ServiceBalancing balancing, boolean refuseLocalAddresses, Upstream.Tls given) {
        Upstream.Protocol p = protocol == null ? Upstream.Protocol.HTTP1 : switch (protocol) {
            case "h2c" -> Upstream.Protocol.H2C;
            case "h2" -> Upstream.Protocol.H2;
            default -> Upstream.Protocol.HTTP1;
        };
        boolean tls = "https".equals(protocol) || "h2".equals(protocol);
        return new Upstream(model, endpoints, p, balancing.loadBalancer(), null, Map.of(), balancing.hashOn(),
                balancing.pool(), null, Upstream.DEFAULT_PANIC_THRESHOLD, 0,
                tls ? given != null ? given : Upstream.Tls.UNVERIFIED : null, refuseLocalAddresses);
    }

    /**
     * The upstream an Ingress's {@code mirror-target} outside the cluster becomes
     * ({@code external.HOST.PORT[.https]}): one endpoint, the host, which the proxy looks up when it connects and which
     * may not lead to a local address, as an ExternalName Service's name. Over TLS the certificate is checked against
     * the proxy's trust store for the host (sent as SNI): the copies carry the clients' requests, credentials and all,
     * out of the cluster, where nginx would send them unchecked (its {@code proxy_ssl_verify off}).
     */
    static Upstream hostUpstream(String host, int port, boolean tls) {
        return serviceUpstream(hostUpstreamName(host, port, tls), List.of(new dev.strait.model.HostPort(host, port)),
                tls ? "https" : null, ServiceBalancing.DEFAULT, true, tls ? new Upstream.Tls(null, null, null, null) : null);
    }

    /** The name of {@link #hostUpstream}: never a Service's or an Upstream resource's ({@code service.}, {@code upstream.}). */
    static String hostUpstreamName(String host, int port, boolean tls) {
        return "external." + host + "." + port + (tls ? ".https" : "");
    }

    /**
     * A Service backend's {@code sessionAffinity} (under {@code path}) as the hash of its upstream: a consistent
     * hash on the cookie, which the proxy sets (a random key, or with {@code mode: persistent} the endpoint's name).
     * Null without one; what cannot be read is an error in {@code errors}.
     */
    static Upstream.HashOn affinity(JsonNode node, String path, List<String> errors) {
        if (node == null || node.isNull()) {
            return null;
        }
        RouteSpec.SessionAffinity a;
        try {
            a = JSON.convertValue(node, RouteSpec.SessionAffinity.class);
        } catch (IllegalArgumentException e) {
            errors.add(path + ": is not { cookieName, path, maxAge }");
            return null;
        }
        if (a == null || a.cookieName == null) {
            errors.add(path + ".cookieName: required");
            return null;
        }
        java.time.Duration maxAge = null;
        if (a.maxAge != null) {
            try {
                maxAge = dev.strait.model.Durations.parse(a.maxAge);
            } catch (IllegalArgumentException e) {
                errors.add(path + ".maxAge: " + e.getMessage());
                return null;
            }
        }
        String domainProblem = a.domain == null ? null : Upstream.SetCookie.domainProblem(a.domain);
        if (domainProblem != null) {
            errors.add(path + ".domain: " + domainProblem);
            return null;
        }
        if (a.mode != null && !a.mode.equals(Upstream.SetCookie.BALANCED) && !a.mode.equals(Upstream.SetCookie.PERSISTENT)) {
            errors.add(path + ".mode: \"" + a.mode + "\" is neither balanced nor persistent");
            return null;
        }
        return new Upstream.HashOn(Upstream.HashSource.COOKIE, a.cookieName,
                new Upstream.SetCookie(a.path == null ? "/" : a.path, maxAge, a.sameSite,
                        Boolean.TRUE.equals(a.changeOnFailure), a.domain, Boolean.TRUE.equals(a.secure),
                        Upstream.SetCookie.PERSISTENT.equals(a.mode)));
    }

    /** Between an Ingress's name and its host's index in the model name of a Route made for it (ADR 0012). */
    public static final String INGRESS_PIECE = "..ingress-";

    /** The model name of a Route resource. */
    public static String routeName(String namespace, String name) {
        return namespace + "." + name;
    }

    public Translation translate(Inputs in) {
        previousChecks = checks;
        checks = new HashMap<>();
        ServiceEndpoints endpoints = new ServiceEndpoints(in.services(), in.endpointSlices(), defaults.clusterDomain());
        Map<String, Secret> secrets = new HashMap<>();
        in.secrets().forEach(s -> secrets.put(s.getMetadata().getNamespace() + "/" + s.getMetadata().getName(), s));
        // Read again every time (a Secret change is a rebuild): cert-manager's renewal reaches the proxies like any.
        DefaultCertificate defaultCertificate = DefaultCertificate.resolve(defaults, secrets);
        int expected = (in.routes().size() + in.upstreams().size() + in.ingresses().size()) * 4 / 3 + 16;
        Map<ResourceKey, ResourceReport> reports = new HashMap<>(expected);
        Map<ResourceKey, Integer> contents = new HashMap<>(expected);
        Map<String, Upstream> models = new HashMap<>();
        Map<String, UpstreamState> upstreamStates = new HashMap<>();
        models.put(UNRESOLVED, UNRESOLVED_UPSTREAM);
        models.put(UNRESOLVED_FASTCGI, UNRESOLVED_FASTCGI_UPSTREAM);

        for (dev.strait.operator.crd.Upstream u : in.upstreams()) {
            UpstreamState st = upstream(u, endpoints, secrets);
            upstreamStates.put(u.getMetadata().getNamespace() + "/" + u.getMetadata().getName(), st);
            if (st.model != null) {
                models.put(st.model.name(), st.model);
            }
        }

        Map<Scope, List<Translation.Programmed>> programmed = new HashMap<>();
        // Until this translation is done, a failure would leave the owners half decided.
        boolean fromNothing = conflictsLost;
        conflictsLost = true;
        if (fromNothing) {
            conflicts.clear();
        }
        Map<String, Set<Scope>> upstreamScopes = new HashMap<>();
        previousResults = results;
        results = new HashMap<>(expected);
        // When no Upstream, Service, EndpointSlice or Secret changed, a Route whose spec did not change (the
        // same object, or the same generation: see sameSpec) resolves to what it resolved to last time: its
        // state is taken as it is, without resolving its references again.
        boolean referencesSame = lastInputs != null && sameItems(in.upstreams(), lastInputs.upstreams())
                && sameItems(in.services(), lastInputs.services())
                && sameItems(in.endpointSlices(), lastInputs.endpointSlices())
                && sameItems(in.secrets(), lastInputs.secrets());
        lastInputs = in;
        List<Source> canarySources = new ArrayList<>();
        List<Source> sources = sources(in, endpoints, canarySources, defaultCertificate);
        // First every source's Route states, then (oldest first) its claims and result: the conflicts to
        // decide again are known only once every changed source is (ADR 0028).
        List<List<RouteState>> allStates = new ArrayList<>(sources.size());
        List<RouteCall> calls = new ArrayList<>(sources.size());
        List<Scope> sourceScopes = new ArrayList<>(sources.size());
        List<SourceResult> prevs = new ArrayList<>(sources.size());
        Map<ResourceKey, List<RouteState>> changed = new HashMap<>();
        int known = 0;
        for (Source src : sources) {
            ResourceKey key = src.key();
            SourceResult prev = previousResults.get(key);
            List<RouteState> states;
            RouteCall call = null;
            ProxyRejection rejection = in.rejected().isEmpty() ? null : in.rejected().get(key);
            if (rejection != null && rejection.generation() == generation(src.meta())) {
                // Proxies refused it at this generation (ADR 0050): out, until it changes. New states every
                // time, so it is never taken for the source it was before.
                states = new ArrayList<>(src.pieces().size());
                int named = 0;
                for (int i = 0; i < src.pieces().size(); i++) {
                    if (src.pieces().get(i).route().getMetadata().getName().equals(rejection.route())) {
                        named = i; // its message is about this Route's fields
                    }
                }
                for (int i = 0; i < src.pieces().size(); i++) {
                    RouteState st = new RouteState();
                    if (i == named) {
                        st.specErrors.add(rejection.message());
                    }
                    st.rejected = true;
                    states.add(st);
                }
            } else if (referencesSame && prev != null && prev.call != null && sameSpec(prev.source, src.meta())) {
                call = prev.call;
                checks.put(call.memoKey, prev.states.get(0)); // kept for the next translation, as route() would
                models.putAll(call.added);
                states = prev.states;
            } else {
                states = new ArrayList<>(src.pieces().size());
                for (IngressRoutes.Piece piece : src.pieces()) {
                    RouteCall c = new RouteCall();
                    states.add(route(piece, endpoints, upstreamStates, secrets, models, c));
                    call = src.pieces().size() == 1 && piece.route() == src.meta() && c.memoKey != null ? c : null;
                }
            }
            Scope scope = defaults.scopeOf(src.ingressClass(), key.namespace());
            if (prev != null && prev.scope.equals(scope)) {
                scope = prev.scope; // one instance per scope: compared again for every source
            }
            known += prev == null ? 0 : 1;
            prevs.add(prev);
            allStates.add(states);
            calls.add(call);
            sourceScopes.add(scope);
            if (fromNothing || !sameInputs(prev, src, states, scope)) {
                changed.put(key, states);
                if (prev != null && !fromNothing) {
                    leave(prev);
                }
                for (RouteState st : states) {
                    if (st.model != null) {
                        conflicts.computeIfAbsent(scope, s -> new Conflicts(claimKeys)).enter(key, st.model);
                    }
                }
            }
        }
        if (!fromNothing && previousResults.size() > known) { // some went away
            Set<ResourceKey> present = new HashSet<>(sources.size() * 2);
            sources.forEach(src -> present.add(src.key()));
            for (SourceResult prev : previousResults.values()) {
                if (!present.contains(prev.report().key())) {
                    leave(prev);
                }
            }
        }
        Set<ResourceKey> reopened = new HashSet<>();
        List<PassedThrough> passedThrough = new ArrayList<>();
        ClientValidationOwners validationOwners = new ClientValidationOwners();
        StatesByKey statesByKey = new StatesByKey(sources, allStates, changed);
        for (Conflicts c : conflicts.values()) {
            reopened.addAll(c.reopen(statesByKey::models));
        }
        for (int i = 0; i < sources.size(); i++) {
            Source src = sources.get(i);
            ResourceKey key = src.key();
            SourceResult prev = prevs.get(i);
            List<RouteState> states = allStates.get(i);
            RouteCall call = calls.get(i);
            Scope scope = sourceScopes.get(i);
            SourceResult result;
            if (!changed.containsKey(key) && (reopened.isEmpty() || !reopened.contains(key))) {
                result = prev.of(src.meta(), call); // its inputs and its conflicts' are as they were
                reused++;
            } else {
                result = reuse(prev, src, states, scope, conflicts, call);
                if (result == null) {
                    result = translate(src, states, scope, conflicts, call);
                } else {
                    reused++;
                }
            }
            results.put(key, result);
            // Decided again every time, after the result (which is kept as it is for the next translation): which
            // policy a host's clients are asked for depends on every older source of the scope.
            List<Translation.Programmed> served = result.kept;
            ResourceReport report = result.report;
            int content = result.content;
            if (!served.isEmpty()) {
                List<String> lost = new ArrayList<>();
                served = validationOwners.admit(scope, key, served, lost);
                if (!lost.isEmpty()) {
                    report = lostPolicies(report, lost, served.isEmpty());
                    content = served.hashCode();
                }
            }
            if (!served.isEmpty()) {
                programmed.computeIfAbsent(scope, s -> new ArrayList<>()).addAll(served);
                contents.put(key, content);
                for (Translation.Programmed p : served) {
                    if (p.route().tlsPassthrough() != null) {
                        passedThrough.add(new PassedThrough(scope, key, p, served.size()));
                    }
                }
            }
            reports.put(key, report);
        }
        if (!passedThrough.isEmpty() && defaults.https() == null) {
            withoutTlsListener(passedThrough, programmed, reports, contents);
        }
        programmed.forEach((scope, served) -> {
            for (Translation.Programmed p : served) {
                for (String u : p.upstreams()) {
                    upstreamScopes.computeIfAbsent(u, x -> new HashSet<>()).add(scope);
                }
            }
        });

        for (Source src : canarySources) {
            canary(src, programmed, endpoints, upstreamStates, secrets, models, reports, contents, upstreamScopes);
        }

        for (dev.strait.operator.crd.Upstream u : in.upstreams()) {
            ResourceKey key = ResourceKey.of(u);
            UpstreamState st = upstreamStates.get(key.namespace() + "/" + key.name());
            StatusCondition accepted = st.specErrors.isEmpty()
                    ? StatusCondition.yes(StatusCondition.ACCEPTED, "Accepted", "valid")
                    : StatusCondition.no(StatusCondition.ACCEPTED, "Invalid", String.join("; ", st.specErrors));
            StatusCondition resolved = st.refErrors.isEmpty()
                    ? StatusCondition.yes(StatusCondition.RESOLVED_REFS, "ResolvedRefs", st.model == null
                            ? "Service found" : st.model.refuseLocalAddresses()
                            ? "ExternalName " + st.model.endpoints().get(0) + ", looked up by the proxy"
                            : st.model.endpoints().size() + " ready endpoint(s)")
                    : StatusCondition.no(StatusCondition.RESOLVED_REFS, st.refReason, String.join("; ", st.refErrors));
            List<String> errors = new ArrayList<>(st.specErrors);
            errors.addAll(st.refErrors);
            Set<Scope> scopes = st.model == null ? Set.of()
                    : upstreamScopes.getOrDefault(st.model.name(), Set.of());
            if (!scopes.isEmpty()) {
                contents.put(key, st.model.hashCode());
            }
            reports.put(key, new ResourceReport(key, generation(u), accepted, resolved, scopes, errors));
        }
        claimKeys.next();
        conflictsLost = false;
        writers.keySet().retainAll(programmed.keySet());
        return new Translation(defaults, programmed, models, reports, contents, writers, defaultCertificate);
    }

    /** A served Route with tlsPassthrough, one of the {@code served} Routes its source has in {@code scope}. */
    private record PassedThrough(Scope scope, ResourceKey key, Translation.Programmed programmed, int served) {}

    /**
     * Leaves out the Routes with tlsPassthrough when the proxies have no TLS listener to pass their connections
     * through on: the operator runs without one ({@code ProxyDefaults.https}). Otherwise a snapshot with such a Route
     * has an https listener, one without certificates when no Route of the scope brings one (see
     * {@link Translation}). Their plain-HTTP redirect to https would lead nowhere.
     */
    private void withoutTlsListener(List<PassedThrough> passedThrough, Map<Scope, List<Translation.Programmed>> programmed,
                                    Map<ResourceKey, ResourceReport> reports, Map<ResourceKey, Integer> contents) {
        Map<ResourceKey, Integer> left = new HashMap<>();
        for (PassedThrough pt : passedThrough) {
            List<Translation.Programmed> served = programmed.get(pt.scope());
            served.remove(pt.programmed());
            int remaining = left.merge(pt.key(), pt.served() - 1, (a, b) -> a - 1);
            ResourceReport r = reports.get(pt.key());
            String field = pt.key().kind().equals("Ingress")
                    ? IngressAnnotations.field(IngressAnnotations.SSL_PASSTHROUGH) : "spec.tlsPassthrough";
            String message = field + ": the proxies of " + pt.scope() + " have no https listener to pass connections"
                    + " through on (the operator is run without one); the hosts are not served";
            List<String> errors = new ArrayList<>(r.errors());
            if (!errors.contains(message)) {
                errors.add(message);
            }
            reports.put(pt.key(), new ResourceReport(r.key(), r.generation(), r.accepted(), r.resolvedRefs(),
                    remaining == 0 ? Set.of() : r.scopes(), errors));
            if (remaining == 0) {
                contents.remove(pt.key());
            } else {
                contents.put(pt.key(), java.util.Objects.hash(contents.get(pt.key()), remaining));
            }
        }
        programmed.values().removeIf(List::isEmpty);
    }

    /**
     * What one source (a Route, or an Ingress) came to in a translation, kept for the next: when its
     * inputs come out the same (the same memoized {@link RouteState}s, hence the same spec, generation and
     * resolved references, and the same scope) and its conflicts are decided the same way, the result is
     * reused as it is instead of being rebuilt (ADR 0025).
     */
    private record SourceResult(HasMetadata source, RouteCall call, long generation, Scope scope, List<RouteState> states,
                                List<ClaimOutcome> claims, List<Translation.Programmed> kept, int content,
                                ResourceReport report) {
        /** The same result for another object of the same source (a status write, a label). */
        SourceResult of(HasMetadata source, RouteCall call) {
            return source == this.source && call == this.call ? this
                    : new SourceResult(source, call, generation, scope, states, claims, kept, content, report);
        }
    }

    /** What resolving a Route's references came to: its memo key, and the upstreams it added for Service backends. */
    private static final class RouteCall {
        String memoKey;
        Map<String, Upstream> added = Map.of();
    }

    private static boolean sameItems(List<?> a, List<?> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i) != b.get(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a source comes out of its Route states as it did last time, apart from conflicts: the same
     * states (hence spec, generation and resolved references), scope, generation and age (a Route
     * deleted and created again may keep its name and spec, but not its place among the older ones).
     * Ingresses never do (their pieces are made anew each time).
     */
    private static boolean sameInputs(SourceResult prev, Source src, List<RouteState> states, Scope scope) {
        if (prev == null || !src.key().kind().equals("Route") || prev.generation != generation(src.meta())
                || prev.scope != scope && !prev.scope.equals(scope) || prev.states.size() != states.size()
                || !sameAge(prev.source, src.meta())) {
            return false;
        }
        for (int i = 0; i < states.size(); i++) {
            if (prev.states.get(i) != states.get(i)) {
                return false;
            }
        }
        return true;
    }

    /** A source's last Routes no longer compete in their scope. */
    private void leave(SourceResult prev) {
        Conflicts c = conflicts.get(prev.scope);
        if (c != null) {
            for (RouteState st : prev.states) {
                if (st.model != null) {
                    c.leave(prev.report().key(), st.model);
                }
            }
        }
    }

    /**
     * Each source's Route states in this translation by key, for {@link Conflicts#reopen}: the changed
     * ones are at hand, and the map of all is made only when an unchanged source must claim again.
     */
    private static final class StatesByKey {
        private final List<Source> sources;
        private final List<List<RouteState>> states;
        private final Map<ResourceKey, List<RouteState>> changed;
        private Map<ResourceKey, List<RouteState>> all;

        StatesByKey(List<Source> sources, List<List<RouteState>> states, Map<ResourceKey, List<RouteState>> changed) {
            this.sources = sources;
            this.states = states;
            this.changed = changed;
        }

        List<dev.strait.model.Route> models(ResourceKey key) {
            List<RouteState> sts = changed.get(key);
            if (sts == null) {
                if (all == null) {
                    all = new HashMap<>(sources.size() * 2);
                    for (int i = 0; i < sources.size(); i++) {
                        all.put(sources.get(i).key(), states.get(i));
                    }
                }
                sts = all.getOrDefault(key, List.of());
            }
            List<dev.strait.model.Route> out = new ArrayList<>(sts.size());
            for (RouteState st : sts) {
                if (st.model != null) {
                    out.add(st.model);
                }
            }
            return out;
        }
    }

    /** What {@link Conflicts#claim} gave for one Route of a source: the Route kept, and the matches it lost. */
    private record ClaimOutcome(dev.strait.model.Route route, List<String> lost) {}

    /**
     * The previous result of a Route resource, when nothing it depends on changed; claims its matches
     * either way (claims are idempotent: claiming again what one already owns changes nothing). Null to
     * translate it afresh. Ingresses always are (their pieces are made anew each time).
     */
    private SourceResult reuse(SourceResult prev, Source src, List<RouteState> states, Scope scope,
                               Map<Scope, Conflicts> conflicts, RouteCall call) {
        if (!sameInputs(prev, src, states, scope)) {
            return null;
        }
        if (prev.claims == null) {
            return prev.of(src.meta(), call); // not valid: it claimed nothing, and its report depends on nothing else
        }
        Conflicts c = conflicts.computeIfAbsent(scope, s -> new Conflicts(claimKeys));
        for (int i = 0; i < states.size(); i++) {
            List<String> lost = new ArrayList<>();
            dev.strait.model.Route route = c.claim(src.key(), states.get(i).model, states.get(i).implicitMatches, lost);
            ClaimOutcome before = prev.claims.get(i);
            if (route != before.route() && !route.equals(before.route()) || !lost.equals(before.lost())) {
                return null;
            }
        }
        return prev.of(src.meta(), call);
    }

    /** A source from scratch (its Routes' states are memoized apart). */
    private SourceResult translate(Source src, List<RouteState> states, Scope scope, Map<Scope, Conflicts> conflicts,
                                   RouteCall call) {
        ResourceKey key = src.key();
        List<String> specErrors = new ArrayList<>();
        List<String> refErrors = new ArrayList<>();
        String refReason = null;
        for (int i = 0; i < states.size(); i++) {
            IngressRoutes.Piece piece = src.pieces().get(i);
            RouteState st = states.get(i);
            specErrors.addAll(piece.rewrite(st.specErrors));
            if (!piece.refErrors().isEmpty() && refReason == null) {
                refReason = piece.refReason() != null ? piece.refReason() : "BackendNotFound";
            }
            refErrors.addAll(piece.refErrors());
            refErrors.addAll(piece.rewrite(st.refErrors));
            if (refReason == null) {
                refReason = st.refReason;
            }
        }
        if (!src.leftOut().isEmpty()) {
            // Reported like a reference that does not resolve: the Ingress is accepted and serves the rest.
            refErrors.addAll(0, src.leftOut());
            refReason = IngressRoutes.INVALID_PATH;
        }
        Set<Scope> scopes = new HashSet<>();
        // An Ingress's defaultBackend is in every host's Route: its error once, not once per host.
        refErrors = new ArrayList<>(new java.util.LinkedHashSet<>(refErrors));
        boolean rejected = !states.isEmpty() && states.get(0).rejected;
        StatusCondition accepted = accepted(specErrors, rejected);
        StatusCondition resolved = resolved(refErrors, refReason);
        List<String> errors = new ArrayList<>(specErrors);
        errors.addAll(refErrors);
        List<ClaimOutcome> claims = null;
        List<Translation.Programmed> kept = List.of();
        int content = 0;
        if (specErrors.isEmpty() && !states.isEmpty()) {
            claims = new ArrayList<>();
            List<String> lost = new ArrayList<>();
            kept = new ArrayList<>();
            for (int i = 0; i < states.size(); i++) {
                RouteState st = states.get(i);
                List<String> lostHere = new ArrayList<>();
                dev.strait.model.Route route = conflicts.computeIfAbsent(scope, s -> new Conflicts(claimKeys))
                        .claim(key, st.model, st.implicitMatches, lostHere);
                claims.add(new ClaimOutcome(route, List.copyOf(lostHere)));
                lost.addAll(src.pieces().get(i).rewrite(lostHere));
                if (!route.rules().isEmpty() || route.tlsPassthrough() != null && !route.hosts().isEmpty()) {
                    kept.add(new Translation.Programmed(route, st.upstreams, st.certificate, st.clientValidation));
                }
            }
            errors.addAll(lost);
            if (kept.isEmpty()) {
                accepted = StatusCondition.no(StatusCondition.ACCEPTED, "Conflicted", String.join("; ", lost));
            } else {
                if (!lost.isEmpty()) {
                    accepted = StatusCondition.yes(StatusCondition.ACCEPTED, "PartiallyConflicted",
                            String.join("; ", lost));
                }
                content = kept.size() == 1 ? kept.get(0).hashCode() : kept.hashCode();
                scopes.add(scope);
            }
            kept = List.copyOf(kept);
        }
        return new SourceResult(src.meta(), call, generation(src.meta()), scope, List.copyOf(states), claims, kept, content,
                new ResourceReport(key, generation(src.meta()), accepted, resolved, scopes, errors));
    }

    /**
     * A Route, or an Ingress of one of our classes, as the Routes it stands for; {@code leftOut} names what of an
     * Ingress none of them serves (paths the model refuses), each with the error that says why.
     */
    private record Source(ResourceKey key, HasMetadata meta, String ingressClass, List<IngressRoutes.Piece> pieces,
                          List<String> leftOut) {}

    /**
     * An ingress-nginx canary Ingress (ADR 0063): its paths' backends join the same host and path of the
     * Ingresses that serve them, in the scope's routes as programmed, by weight ({@code canary-weight} of
     * {@code canary-weight-total}) and by header ({@code canary-by-header}: {@code always} or the given
     * value to the canary, {@code never} to the primary). It claims no path of its own, so it never takes
     * over or conflicts with what it splits. Reported like any Ingress; a path that no Ingress serves is an
     * unresolved reference. Not memoised: canaries are few, and their result depends on others'.
     */
    private void canary(Source src, Map<Scope, List<Translation.Programmed>> programmed, ServiceEndpoints endpoints,
                        Map<String, UpstreamState> upstreamStates, Map<String, Secret> secrets,
                        Map<String, Upstream> models, Map<ResourceKey, ResourceReport> reports,
                        Map<ResourceKey, Integer> contents, Map<String, Set<Scope>> upstreamScopes) {
        ResourceKey key = src.key();
        Ingress ing = (Ingress) src.meta();
        IngressAnnotations a = new IngressAnnotations(ing.getMetadata().getAnnotations(), key.namespace());
        Scope scope = defaults.scopeOf(src.ingressClass(), key.namespace());
        List<String> specErrors = new ArrayList<>();
        List<String> refErrors = new ArrayList<>(src.leftOut());
        String refReason = src.leftOut().isEmpty() ? null : IngressRoutes.INVALID_PATH;
        List<Translation.Programmed> routes = programmed.computeIfAbsent(scope, s -> new ArrayList<>());
        List<Object> applied = new ArrayList<>();
        for (IngressRoutes.Piece piece : src.pieces()) {
            RouteState st = route(piece, endpoints, upstreamStates, secrets, models, new RouteCall());
            specErrors.addAll(piece.rewrite(st.specErrors));
            refErrors.addAll(piece.refErrors());
            refErrors.addAll(piece.rewrite(st.refErrors));
            if (refReason == null && !piece.refErrors().isEmpty()) {
                refReason = piece.refReason() != null ? piece.refReason() : "BackendNotFound";
            }
            if (refReason == null) {
                refReason = st.refReason;
            }
            String name = piece.route().getMetadata().getName();
            if (st.model == null || name.endsWith(IngressRoutes.TO_HTTPS) || name.endsWith(IngressRoutes.DEFAULT_BACKEND)) {
                continue; // a canary splits its paths' traffic; its redirects and defaultBackend serve nothing
            }
            for (dev.strait.model.Route.Rule rule : st.model.rules()) {
                if (!(rule.action() instanceof dev.strait.model.Route.Backends canaryBackends)) {
                    continue;
                }
                for (String host : st.model.hosts()) {
                    for (dev.strait.model.Route.Match m : rule.matches()) {
                        if (splitInto(routes, host, m, canaryBackends, st.upstreams, a)) {
                            applied.add(host + " " + m.path());
                            for (String u : st.upstreams) {
                                upstreamScopes.computeIfAbsent(u, x -> new HashSet<>()).add(scope);
                            }
                        } else {
                            refErrors.add("no Ingress of its class serves " + host + " " + (m.path() == null ? "/"
                                    : m.path().value()) + " (" + (m.path() == null ? "Prefix" : m.path().type())
                                    + "): nothing to split");
                            if (refReason == null) {
                                refReason = "NoPrimary";
                            }
                        }
                    }
                }
            }
        }
        refErrors = new ArrayList<>(new java.util.LinkedHashSet<>(refErrors));
        StatusCondition accepted = accepted(specErrors, false);
        StatusCondition resolved = resolved(refErrors, refReason == null ? "BackendNotFound" : refReason);
        List<String> errors = new ArrayList<>(specErrors);
        errors.addAll(refErrors);
        Set<Scope> scopes = applied.isEmpty() ? Set.of() : Set.of(scope);
        if (!applied.isEmpty()) {
            contents.put(key, java.util.Objects.hash(applied, a.canaryWeight, a.canaryWeightTotal, a.canaryHeader,
                    a.canaryHeaderValue, a.canaryHeaderPattern));
        }
        reports.put(key, new ResourceReport(key, generation(ing), accepted, resolved, scopes, errors));
    }

    /** A Route's or Ingress's Accepted condition: its spec errors, or valid. */
    private static StatusCondition accepted(List<String> specErrors, boolean rejected) {
        return specErrors.isEmpty()
                ? StatusCondition.yes(StatusCondition.ACCEPTED, "Accepted", "valid")
                : StatusCondition.no(StatusCondition.ACCEPTED, rejected ? "RejectedByProxy" : "Invalid",
                        String.join("; ", specErrors));
    }

    /** Its ResolvedRefs condition: the references that did not resolve, with the first one's reason. */
    private static StatusCondition resolved(List<String> refErrors, String refReason) {
        return refErrors.isEmpty()
                ? StatusCondition.yes(StatusCondition.RESOLVED_REFS, "ResolvedRefs", "all references resolved")
                : StatusCondition.no(StatusCondition.RESOLVED_REFS, refReason, String.join("; ", refErrors));
    }

    /**
     * A source's report once some of its Routes are left out for asking other client certificates of a host than an
     * older source does ({@code lost}, one message per host): Conflicted when nothing of it is served any more.
     */
    private static ResourceReport lostPolicies(ResourceReport report, List<String> lost, boolean nothingServed) {
        String before = report.accepted().reason().equals("PartiallyConflicted") ? report.accepted().message() + "; " : "";
        StatusCondition accepted = nothingServed
                ? StatusCondition.no(StatusCondition.ACCEPTED, "Conflicted", before + String.join("; ", lost))
                : StatusCondition.yes(StatusCondition.ACCEPTED, "PartiallyConflicted", before + String.join("; ", lost));
        List<String> errors = new ArrayList<>(report.errors());
        errors.addAll(lost);
        return new ResourceReport(report.key(), report.generation(), accepted, report.resolvedRefs(),
                nothingServed ? Set.of() : report.scopes(), errors);
    }

    /**
     * Which client certificates each host of a scope asks for, as the sources are taken oldest first: the first
     * source whose Route asks for a host's sets its policy (nginx's {@code ssl_verify_client} is per server, ingress-nginx
     * takes a host's {@code auth-tls-*} from its oldest Ingress). A younger Route that asks for other settings on the
     * same host is left out, never served under a policy other than its own; the same settings are no conflict, and
     * Routes that ask for none are checked with the host's. One per translation.
     */
    private static final class ClientValidationOwners {
        private record Owner(ResourceKey source, Config.ClientValidation policy) {}

        private final Map<Scope, Map<String, Owner>> owners = new HashMap<>();

        /** {@code kept} without the Routes that lose a host's policy to an older source; one message per host in {@code lost}. */
        List<Translation.Programmed> admit(Scope scope, ResourceKey key, List<Translation.Programmed> kept,
                                           List<String> lost) {
            List<Translation.Programmed> out = null; // made only once one is left out
            for (int i = 0; i < kept.size(); i++) {
                Translation.Programmed p = kept.get(i);
                Config.ClientValidation cv = p.clientValidation();
                boolean admitted = true;
                if (cv != null) {
                    Config.ClientValidation policy = policy(cv);
                    Map<String, Owner> hosts = owners.computeIfAbsent(scope, s -> new HashMap<>());
                    for (String host : cv.hosts()) {
                        Owner owner = hosts.get(host);
                        if (owner != null && !owner.source().equals(key) && !owner.policy().equals(policy)) {
                            admitted = false;
                            String message = fieldOf(key) + ": host \"" + host + "\" already asks for client"
                                    + " certificates as " + owner.source().kind() + " " + owner.source().namespace() + "/"
                                    + owner.source().name() + " says, with other settings (the older "
                                    + owner.source().kind() + " wins)";
                            if (!lost.contains(message)) {
                                lost.add(message);
                            }
                        }
                    }
                    if (admitted) {
                        for (String host : cv.hosts()) {
                            hosts.putIfAbsent(host, new Owner(key, policy));
                        }
                    }
                }
                if (!admitted && out == null) {
                    out = new ArrayList<>(kept.subList(0, i));
                } else if (admitted && out != null) {
                    out.add(p);
                }
            }
            return out == null ? kept : List.copyOf(out);
        }

        /** The settings alone: two Routes asking the same of their hosts' clients do not conflict. */
        private static Config.ClientValidation policy(Config.ClientValidation cv) {
            return cv.withHosts(List.of());
        }

        private static String fieldOf(ResourceKey key) {
            return key.kind().equals("Ingress") ? IngressAnnotations.field(IngressAnnotations.AUTH_TLS_SECRET)
                    : CLIENT_VALIDATION;
        }
    }

    /** The field of a Route that asks for client certificates, as its errors name it. */
    static final String CLIENT_VALIDATION = "spec.tls.clientValidation";

    /**
     * Splits the rule of an Ingress-made Route in {@code routes} whose match is {@code match} on {@code host}:
     * its Programmed entry is replaced with one whose rule sends the canary's share to {@code canary}.
     * Only a rule that forwards and matches on the path alone (what an Ingress path becomes) is split.
     */
    private static boolean splitInto(List<Translation.Programmed> routes, String host, dev.strait.model.Route.Match match,
                                     dev.strait.model.Route.Backends canary, Set<String> canaryUpstreams,
                                     IngressAnnotations a) {
        for (int i = 0; i < routes.size(); i++) {
            Translation.Programmed p = routes.get(i);
            dev.strait.model.Route r = p.route();
            if (!r.name().contains(INGRESS_PIECE) || r.name().endsWith(IngressRoutes.TO_HTTPS)
                    || !r.hosts().contains(host)) {
                continue;
            }
            for (int j = 0; j < r.rules().size(); j++) {
                dev.strait.model.Route.Rule rule = r.rules().get(j);
                if (!(rule.action() instanceof dev.strait.model.Route.Backends primary)
                        || !rule.matches().contains(match) || rule.matches().size() != 1) {
                    continue;
                }
                List<dev.strait.model.Route.Rule> rules = new ArrayList<>(r.rules());
                rules.set(j, with(rule, rule.matches(), split(primary, canary, a)));
                // Header rules first: with a header and a cookie condition alike, the proxy keeps the earlier,
                // and ingress-nginx's header wins over its cookie. All of them before the split rule, which a regex
                // path (tried in order, not by its conditions) would otherwise answer first.
                int at = j;
                if (a.canaryHeader != null) {
                    if (a.canaryHeaderValue != null) {
                        rules.add(at++, with(rule, List.of(headerMatch(match, a.canaryHeader, a.canaryHeaderValue)), canary));
                    } else if (a.canaryHeaderPattern != null) {
                        rules.add(at++, with(rule, List.of(headerMatch(match, new dev.strait.model.Route.HeaderMatch(
                                a.canaryHeader, a.canaryHeaderPattern, dev.strait.model.Route.HeaderMatchType.RegularExpression))),
                                canary));
                    } else {
                        rules.add(at++, with(rule, List.of(headerMatch(match, a.canaryHeader, "always")), canary));
                        rules.add(at++, with(rule, List.of(headerMatch(match, a.canaryHeader, "never")), primary));
                    }
                }
                if (a.canaryCookie != null) {
                    rules.add(at++, with(rule, List.of(cookieMatch(match, a.canaryCookie, "always")), canary));
                    rules.add(at, with(rule, List.of(cookieMatch(match, a.canaryCookie, "never")), primary));
                }
                Set<String> upstreams = new HashSet<>(p.upstreams());
                upstreams.addAll(canaryUpstreams);
                routes.set(i, new Translation.Programmed(new dev.strait.model.Route(r.name(), r.hosts(), rules,
                        r.listeners(), null, r.hsts()), upstreams, p.certificate(), p.clientValidation()));
                return true;
            }
        }
        return false;
    }

    /** The primary's backends and the canary's, weighted so the canary gets its share of every request. */
    private static dev.strait.model.Route.Backends split(dev.strait.model.Route.Backends primary,
                                                         dev.strait.model.Route.Backends canary, IngressAnnotations a) {
        if (a.canaryWeight == 0) {
            return primary;
        }
        List<dev.strait.model.Route.Backend> out = new ArrayList<>();
        if (a.canaryWeight < a.canaryWeightTotal) {
            for (dev.strait.model.Route.Backend b : primary.backends()) {
                out.add(new dev.strait.model.Route.Backend(b.upstream(), b.weight() * (a.canaryWeightTotal - a.canaryWeight)));
            }
        }
        for (dev.strait.model.Route.Backend b : canary.backends()) {
            out.add(new dev.strait.model.Route.Backend(b.upstream(), b.weight() * a.canaryWeight));
        }
        return new dev.strait.model.Route.Backends(out);
    }

    private static dev.strait.model.Route.Match headerMatch(dev.strait.model.Route.Match m, String name, String value) {
        return headerMatch(m, new dev.strait.model.Route.HeaderMatch(name, value));
    }

    private static dev.strait.model.Route.Match headerMatch(dev.strait.model.Route.Match m,
                                                            dev.strait.model.Route.HeaderMatch condition) {
        List<dev.strait.model.Route.HeaderMatch> headers = new ArrayList<>(m.headers());
        headers.add(condition);
        return new dev.strait.model.Route.Match(m.path(), m.method(), headers, m.cookies());
    }

    private static dev.strait.model.Route.Match cookieMatch(dev.strait.model.Route.Match m, String name, String value) {
        List<dev.strait.model.Route.CookieMatch> cookies = new ArrayList<>(m.cookies());
        cookies.add(new dev.strait.model.Route.CookieMatch(name, value));
        return new dev.strait.model.Route.Match(m.path(), m.method(), m.headers(), cookies);
    }

    /**
     * The primary's rule with a canary's matches and action: its guards (basicAuth, forwardAuth, addresses) and
     * other settings kept, whatever the model adds later, so a canary's share is never served less guarded.
     */
    private static dev.strait.model.Route.Rule with(dev.strait.model.Route.Rule r, List<dev.strait.model.Route.Match> matches,
                                                    dev.strait.model.Route.Action action) {
        return Conflicts.with(r, matches, action);
    }

    /** Routes and our Ingresses, oldest first (the order of conflicts and of the proxy's host merging). */
    private List<Source> sources(Inputs in, ServiceEndpoints endpoints, List<Source> canaries,
                                 DefaultCertificate defaultCertificate) {
        List<Source> out = new ArrayList<>();
        IdentityHashMap<HasMetadata, ResourceKey> keys = new IdentityHashMap<>(in.routes().size() * 2);
        // When every source keeps its place and none changed its age (a creation time is fixed, but a
        // source deleted and created again keeps its key), the last order is the sorted order already.
        boolean sameAges = true;
        for (Route r : in.routes()) {
            ResourceKey key = previousKeys.get(r);
            if (key == null) {
                // A new object (an edit, a status write) of a known source keeps the key instance its
                // results were made with, so that lookups of either find it by identity.
                ResourceKey fresh = ResourceKey.of(r);
                SourceResult prev = previousResults.get(fresh);
                key = prev != null ? prev.report().key() : fresh;
                // (no result but a place: the last translation failed after ordering; sort to be sure)
                sameAges &= prev != null ? sameAge(prev.source, r) : !previousOrder.containsKey(fresh);
            }
            keys.put(r, key);
            out.add(new Source(key, r, r.getSpec() == null ? null : r.getSpec().ingressClassName,
                    List.of(IngressRoutes.Piece.of(r)), List.of()));
        }
        previousKeys = keys;
        // ingress-nginx makes every path of a host a regex once one Ingress of the host needs one (ADR 0074): which
        // hosts, per scope (the proxies that serve them), before any Ingress is rewritten. A canary adds no path.
        List<Ingress> ours = new ArrayList<>();
        List<String> classes = new ArrayList<>();
        Map<String, io.fabric8.kubernetes.api.model.ConfigMap> configMaps = new HashMap<>();
        in.configMaps().forEach(c -> configMaps.put(c.getMetadata().getNamespace() + "/" + c.getMetadata().getName(), c));
        Map<Scope, Set<String>> regexHosts = new HashMap<>();
        for (Ingress ing : in.ingresses()) {
            String cls = IngressRoutes.classOf(ing, in.ingressClasses(), defaults.defaultClass());
            if (cls != null) {
                ours.add(ing);
                classes.add(cls);
                Set<String> hosts = IngressRoutes.isCanary(ing) ? Set.of() : IngressRoutes.regexHosts(ing);
                if (!hosts.isEmpty()) {
                    regexHosts.computeIfAbsent(defaults.scopeOf(cls, ing.getMetadata().getNamespace()),
                            sc -> new HashSet<>()).addAll(hosts);
                }
            }
        }
        for (int o = 0; o < ours.size(); o++) {
            Ingress ing = ours.get(o);
            String cls = classes.get(o);
            ResourceKey key = new ResourceKey("Ingress", ing.getMetadata().getNamespace(), ing.getMetadata().getName());
            SourceResult prev = previousResults.get(key);
            sameAges &= prev != null ? sameAge(prev.source, ing) : !previousOrder.containsKey(key);
            List<String> leftOut = new ArrayList<>();
            Scope scope = defaults.scopeOf(cls, ing.getMetadata().getNamespace());
            Set<String> forced = regexHosts.getOrDefault(scope, Set.of());
            List<IngressRoutes.Piece> pieces = IngressRoutes.pieces(ing, endpoints, leftOut, forced, defaults, configMaps,
                    scope.namespace() == null ? defaultCertificate : DefaultCertificate.SIDECAR);
            Source src = new Source(key, ing, cls, pieces, List.copyOf(leftOut));
            // A canary claims nothing: its paths split the traffic of another Ingress's (see canaries).
            (IngressRoutes.isCanary(ing) ? canaries : out).add(src);
        }
        // Sorting 10k sources from the informers' (hash) order costs n log n comparisons of timestamps and
        // names on every rebuild. Placed in the last translation's order first, they are nearly sorted, and
        // the (adaptive, stable) sort only moves what is new: about n comparisons. The kind breaks the one
        // possible tie (a Route and an Ingress of the same age and name), so the order never depends on
        // the input's.
        Source[] placed = new Source[previousOrder.size()];
        List<Source> unplaced = new ArrayList<>();
        for (Source src : out) {
            Integer at = previousOrder.get(src.key());
            if (at != null && placed[at] == null) {
                placed[at] = src;
            } else {
                unplaced.add(src);
            }
        }
        List<Source> sorted = new ArrayList<>(out.size());
        for (Source src : placed) {
            if (src != null) {
                sorted.add(src);
            }
        }
        if (!sameAges || !unplaced.isEmpty()) {
            sorted.addAll(unplaced);
            sorted.sort((a, b) -> {
                int c = AGE.compare(a.meta(), b.meta());
                return c != 0 ? c : a.key().kind().compareTo(b.key().kind());
            });
        }
        Map<ResourceKey, Integer> order = new HashMap<>(sorted.size() * 2);
        for (int i = 0; i < sorted.size(); i++) {
            order.put(sorted.get(i).key(), i);
        }
        previousOrder = order;
        return sorted;
    }

    /**
     * Whether a Route object has the spec the last translation saw: it is the same object, or another
     * object of the same Route (same uid) with the same generation, as after a status write. The API
     * server bumps a Route's generation on every change to its spec (status is a subresource), which the
     * cache already counts on (ClusterCache ignores updates that keep the generation). Without this, the
     * first change after a wave of status writes (start-up, the proxy counts) resolved every Route's
     * references again and made its memo key, for the same state.
     */
    private static boolean sameSpec(HasMetadata before, HasMetadata now) {
        if (before == now) {
            return true;
        }
        Long generation = now.getMetadata().getGeneration();
        return generation != null && generation.equals(before.getMetadata().getGeneration())
                && java.util.Objects.equals(now.getMetadata().getUid(), before.getMetadata().getUid())
                && now instanceof Route r && r.getSpec() != null;
    }

    private static boolean sameAge(HasMetadata a, HasMetadata b) {
        return a == b || java.util.Objects.equals(a.getMetadata().getCreationTimestamp(), b.getMetadata().getCreationTimestamp());
    }

    private static long generation(HasMetadata r) {
        Long g = r.getMetadata().getGeneration();
        return g == null ? 0 : g;
    }

    // ---- Upstreams ----

    private static final class UpstreamState {
        Upstream model;
        final List<String> specErrors = new ArrayList<>();
        final List<String> refErrors = new ArrayList<>();
        /** ResolvedRefs' reason: the first problem's (a Secret's outranks the Service's, as it drops the Upstream). */
        String refReason = "BackendNotFound";
        /** The TLS Secrets' problems: unlike a missing Service, these keep the Upstream out of every snapshot. */
        final List<String> secretErrors = new ArrayList<>();

        void secretError(String reason, String message) {
            if (secretErrors.isEmpty()) {
                refReason = reason;
            }
            secretErrors.add(message);
            refErrors.add(message);
        }

        /** Why its Routes cannot use it, or empty. */
        List<String> unusable() {
            List<String> out = new ArrayList<>(specErrors);
            out.addAll(secretErrors);
            return out;
        }
    }

    private UpstreamState upstream(dev.strait.operator.crd.Upstream u, ServiceEndpoints endpoints,
                                   Map<String, Secret> secrets) {
        UpstreamState st = new UpstreamState();
        String ns = u.getMetadata().getNamespace();
        if (u.getSpec() == null || u.getSpec().service == null) {
            st.specErrors.add("spec.service: is required");
            return st;
        }
        ObjectNode tree = JSON.valueToTree(u.getSpec());
        tree.remove("service");
        tree.put("name", upstreamName(ns, u.getMetadata().getName()));
        ArrayNode eps = tree.putArray("endpoints");
        ServiceRef svc = u.getSpec().service;
        ServiceEndpoints.Resolution res = endpoints.resolve(ns, svc.namespace, svc.name, svc.port);
        if (!res.ok()) {
            st.refReason = res.reason();
            st.refErrors.add("spec.service." + res.field() + ": " + res.error());
        }
        res.endpoints().forEach(e -> eps.add(e.toString()));
        if (res.byName()) {
            tree.put("refuseLocalAddresses", true); // an ExternalName Service's name: see serviceUpstream
        }
        if (u.getSpec().tls != null) {
            tree.set("tls", upstreamTls(u.getSpec().tls, ns, secrets, st));
        }
        ModelCheck.Checked<Upstream> checked = memo("U" + tree, () -> ModelCheck.upstream(tree));
        st.specErrors.addAll(checked.errors());
        // An Upstream whose Service is missing still exists for its Routes, with no endpoints (503),
        // as a Service without endpoints does: the Service may simply not be created yet. One whose TLS
        // Secret is missing or bad does not: serving it without that TLS would send traffic in the clear
        // or to an unchecked peer, so it is left out, and with it only the Routes that use it.
        st.model = st.secretErrors.isEmpty() ? checked.value() : null;
        return st;
    }

    /**
     * The config's {@code tls} for an Upstream's {@code spec.tls}: its Secrets' PEM inline, checked here as
     * {@link #tls} checks a Route's (a proxy would refuse the whole snapshot for PEM it cannot load).
     */
    private static ObjectNode upstreamTls(dev.strait.operator.crd.UpstreamSpec.Tls spec, String ns,
                                          Map<String, Secret> secrets, UpstreamState st) {
        ObjectNode tls = JSON.createObjectNode();
        if (spec.caSecretName != null) {
            String path = "spec.tls.caSecretName";
            Map<String, String> data = secretData(spec.caSecretName, ns, secrets, path, st);
            if (data != null) {
                String ca = pem(data.get("ca.crt"));
                String problem = ca == null ? "needs PEM data in ca.crt" : TlsMaterial.caProblem(ca);
                if (problem != null) {
                    st.secretError("InvalidSecret", path + ": Secret \"" + spec.caSecretName + "\" " + problem);
                } else {
                    tls.put("ca", ca);
                }
            }
        }
        if (spec.serverName != null) {
            tls.put("serverName", spec.serverName);
        }
        if (spec.verifyDepth != null) {
            tls.put("verifyDepth", spec.verifyDepth);
        }
        if (spec.clientCertificateSecretName != null) {
            String path = "spec.tls.clientCertificateSecretName";
            String name = spec.clientCertificateSecretName;
            Map<String, String> data = secretData(name, ns, secrets, path, st);
            if (data != null && !TLS_SECRET.equals(secrets.get(ns + "/" + name).getType())) {
                data = Map.of(); // a client certificate is a kubernetes.io/tls Secret, as a Route's is
            }
            if (data != null) {
                String cert = pem(data.get("tls.crt"));
                String key = pem(data.get("tls.key"));
                String problem = cert == null || key == null
                        ? "needs PEM data in tls.crt and tls.key (type kubernetes.io/tls)"
                        : TlsMaterial.problem(cert, key);
                if (problem != null) {
                    st.secretError("InvalidSecret", path + ": Secret \"" + name + "\"" + (cert == null || key == null
                            ? " " : ": ") + problem);
                } else {
                    tls.put("cert", cert).put("key", key);
                }
            }
        }
        return tls;
    }

    private static Map<String, String> secretData(String name, String ns, Map<String, Secret> secrets, String path,
                                                  UpstreamState st) {
        Secret s = secrets.get(ns + "/" + name);
        if (s == null) {
            st.secretError("SecretNotFound", path + ": Secret \"" + name + "\" not found");
            return null;
        }
        return s.getData() == null ? Map.of() : s.getData();
    }

    // ---- Routes ----

    /**
     * The model upstream an unresolved backend points at: no endpoints, so the proxy answers its share of
     * the rule's requests with 503 while the rest of the Route serves (ADR 0049). Resource names in
     * snapshots always have a dot ({@code ns.name}, {@code upstream.ns.name}), so these cannot collide.
     */
    static final String UNRESOLVED = "unresolved";
    /** The stand-in in a rule with {@code fastcgi} settings, so they are checked as they would be when resolved. */
    static final String UNRESOLVED_FASTCGI = "unresolved-fastcgi";
    private static final Upstream UNRESOLVED_UPSTREAM = new Upstream(UNRESOLVED, List.of(), Upstream.Protocol.HTTP1,
            Upstream.LoadBalancer.ROUND_ROBIN, null);
    private static final Upstream UNRESOLVED_FASTCGI_UPSTREAM = new Upstream(UNRESOLVED_FASTCGI, List.of(),
            Upstream.Protocol.FASTCGI, Upstream.LoadBalancer.ROUND_ROBIN, null);

    private static final class RouteState {
        dev.strait.model.Route model;
        final List<String> specErrors = new ArrayList<>();
        final List<String> refErrors = new ArrayList<>();
        String refReason;
        final Set<String> upstreams = new TreeSet<>();
        /**
         * What the parser must see declared, with each one's protocol (a rule's {@code fastcgi} settings are
         * checked against it): the upstreams, plus a stand-in for unresolved references.
         */
        final Map<String, Upstream.Protocol> declared = new TreeMap<>();
        final List<Boolean> implicitMatches = new ArrayList<>();
        Config.Certificate certificate;
        /** Its TLS is the operator's default certificate, the https listener's first ({@link DefaultCertificate}). */
        boolean defaultCertificate;
        /** What its hosts ask of clients' certificates, with the Route's hosts; null for nothing, or while it cannot. */
        Config.ClientValidation clientValidation;
        /** Left out because proxies refused it ({@link ProxyRejection}); its one error says why. */
        boolean rejected;

        void refError(ObjectNode backend, String reason, String message) {
            if (refReason == null) {
                refReason = reason;
            }
            refErrors.add(message);
            if (backend != null) {
                backend.remove("service");
                backend.put("upstream", UNRESOLVED);
                declared.put(UNRESOLVED, Upstream.Protocol.HTTP1);
            }
        }

        void use(ObjectNode backend, String upstream, Upstream.Protocol protocol) {
            backend.remove("service");
            backend.put("upstream", upstream);
            upstreams.add(upstream);
            declared.put(upstream, protocol);
        }
    }

    /**
     * A Route's result depends only on its identity, generation and what its references resolve to; when
     * none of these changed since the last translation, the last result is reused without touching the
     * spec. The upstreams made for Service backends are rebuilt every time (their endpoints move).
     */
    private RouteState route(IngressRoutes.Piece piece, ServiceEndpoints endpoints, Map<String, UpstreamState> upstreams,
                             Map<String, Secret> secrets, Map<String, Upstream> models, RouteCall call) {
        Route r = piece.route();
        ServiceTls tls = piece.backendTls() == null ? null
                : serviceTls(piece.backendTls(), r.getMetadata().getNamespace(), secrets);
        Long generation = r.getMetadata().getGeneration();
        Upstream external = piece.external();
        if (generation == null || r.getSpec() == null) {
            return resolveAndCheck(r, tls, external, endpoints, upstreams, secrets, models);
        }
        Map<String, Upstream> serviceUpstreams = new LinkedHashMap<>();
        String refs = references(r, tls, external, endpoints, upstreams, secrets, serviceUpstreams);
        String key = "S" + r.getMetadata().getUid() + "/" + r.getMetadata().getNamespace() + "/"
                + r.getMetadata().getName() + "@" + generation + "|" + refs;
        RouteState st = memo(key, () -> resolveAndCheck(r, tls, external, endpoints, upstreams, secrets,
                new HashMap<>()));
        call.memoKey = key;
        if (st.model != null) {
            models.putAll(serviceUpstreams);
            call.added = serviceUpstreams;
        }
        return st;
    }

    /**
     * What each reference of a Route resolves to, as text; fills in the upstreams made for Service backends (those of
     * its rules' backends spoken to over TLS with {@code tls}, when given), and {@code external} where a mirror names it.
     */
    private static String references(Route r, ServiceTls tls, Upstream external, ServiceEndpoints endpoints,
                                     Map<String, UpstreamState> upstreams, Map<String, Secret> secrets,
                                     Map<String, Upstream> serviceUpstreams) {
        String ns = r.getMetadata().getNamespace();
        StringBuilder sb = new StringBuilder();
        if (r.getSpec().rules != null) {
            for (RouteSpec.Rule rule : r.getSpec().rules) {
                if (rule == null) {
                    continue;
                }
                List<RouteSpec.Backend> all = new ArrayList<>(rule.backends == null ? List.of() : rule.backends);
                int own = all.size(); // the rule's backends; proxy-ssl-* are not its pages' or its check's
                if (rule.errorPages != null && rule.errorPages.backend != null) {
                    all.add(rule.errorPages.backend); // where its pages come from is a reference too
                }
                if (rule.forwardAuth != null && rule.forwardAuth.backend != null) {
                    all.add(rule.forwardAuth.backend); // and who is asked whether a request may pass
                }
                if (rule.mirrors != null) {
                    for (RouteSpec.Mirror m : rule.mirrors) {
                        all.add(m == null ? null : m.backend); // and where its requests are copied to
                    }
                }
                for (int k = 0; k < all.size(); k++) {
                    RouteSpec.Backend b = all.get(k);
                    if (b == null) {
                        continue;
                    }
                    if (external != null && IngressRoutes.EXTERNAL.equals(b.upstream)) {
                        serviceUpstreams.put(external.name(), external);
                        sb.append(external.name());
                    } else if (b.upstream != null) {
                        UpstreamState t = upstreams.get(ns + "/" + b.upstream);
                        // Whether it speaks fastcgi decides whether copies and checks may go to it, so it is a reference.
                        sb.append(t == null ? "?" + b.upstream : t.model == null ? "!" + t.unusable() : t.model.name()
                                + (t.model.protocol() == Upstream.Protocol.FASTCGI ? "!fastcgi" : ""));
                    } else if (b.service != null && b.service.name != null && b.service.port != null) {
                        String target = b.service.namespace == null ? ns : b.service.namespace;
                        ServiceEndpoints.Resolution res = endpoints.resolve(ns, target, b.service.name, b.service.port);
                        String protocol = b.protocol == null ? res.protocol() : JSON.convertValue(b.protocol, String.class);
                        ServiceTls over = k < own && tls != null && overTls(protocol) ? tls : null;
                        if (res.ok() && over != null && over.error() != null) {
                            sb.append('!').append(over.error());
                        } else if (res.ok()) {
                            Upstream.Tls given = over == null ? null : over.tls();
                            // errors are reported when the Route is checked; here only the name counts
                            ServiceBalancing balancing = ServiceBalancing.of(JSON.valueToTree(b), "", new ArrayList<>());
                            String model = serviceUpstreamName(target, b.service.name, b.service.port, protocol, balancing,
                                    given);
                            serviceUpstreams.put(model, serviceUpstream(model, res, protocol, balancing, b.service.port,
                                    given));
                            sb.append(model);
                            if (balancing.clusterIp() && !res.byName()) {
                                // a Service gaining or losing one changes the Route
                                sb.append('@').append(res.clusterIp());
                            }
                        } else {
                            sb.append('!').append(res.field()).append(res.error());
                        }
                    }
                    sb.append(',');
                }
            }
        }
        RouteSpec.TlsPassthrough passthrough = r.getSpec().tlsPassthrough;
        if (passthrough != null) {
            sb.append("|passthrough:");
            if (passthrough.upstream != null) {
                UpstreamState t = upstreams.get(ns + "/" + passthrough.upstream);
                // whether it adds anything to the bytes decides whether the Route can use it
                sb.append(t == null ? "?" + passthrough.upstream : t.model == null ? "!" + t.unusable()
                        : t.model.name() + (plain(t.model) ? "" : "!not-plain"));
            } else if (passthrough.service != null && passthrough.service.name != null && passthrough.service.port != null) {
                ServiceRef svc = passthrough.service;
                String target = svc.namespace == null ? ns : svc.namespace;
                ServiceEndpoints.Resolution res = endpoints.resolve(ns, target, svc.name, svc.port);
                if (res.ok()) {
                    String model = passthroughUpstreamName(target, svc.name, svc.port);
                    serviceUpstreams.put(model, serviceUpstream(model, res, null, ServiceBalancing.DEFAULT, svc.port, null));
                    sb.append(model);
                } else {
                    sb.append('!').append(res.field()).append(res.error());
                }
            }
        }
        if (r.getSpec().rules != null) {
            for (RouteSpec.Rule rule : r.getSpec().rules) {
                if (rule != null && rule.basicAuth != null) {
                    SecretLookup s = secret(secrets, ns, rule.basicAuth.secretNamespace, rule.basicAuth.secretName);
                    sb.append("|auth:").append(s.fingerprint());
                }
            }
        }
        if (tls != null) {
            sb.append("|proxy-ssl:").append(tls.fingerprint());
        }
        if (r.getSpec().tls != null) {
            // The default certificate is the listener's, not the Route's: a renewal leaves its state as it is.
            boolean byDefault = IngressRoutes.DEFAULT_CERTIFICATE.equals(r.getSpec().tls.secretName);
            Secret s = byDefault ? null : secrets.get(ns + "/" + r.getSpec().tls.secretName);
            sb.append("|tls:").append(byDefault ? "default" : s == null ? "?"
                    : String.valueOf(s.getData() == null ? 0 : s.getData().hashCode()));
            RouteSpec.ClientValidation cv = r.getSpec().tls.clientValidation;
            if (cv != null && cv.caSecretName != null) {
                sb.append("|ca:").append(secret(secrets, ns, cv.caSecretNamespace, cv.caSecretName).fingerprint());
            }
        }
        return sb.toString();
    }

    /** @param external the upstream of an Ingress's {@code mirror-target} outside the cluster, or null */
    private RouteState resolveAndCheck(Route r, ServiceTls tls, Upstream external, ServiceEndpoints endpoints,
                                       Map<String, UpstreamState> upstreams, Map<String, Secret> secrets,
                                       Map<String, Upstream> models) {
        RouteState st = new RouteState();
        String ns = r.getMetadata().getNamespace();
        RouteSpec spec = r.getSpec();
        if (spec == null) {
            st.specErrors.add("spec: is required");
            return st;
        }
        ObjectNode tree = JSON.valueToTree(spec);
        tree.remove("ingressClassName");
        tree.remove("tls");
        ObjectNode named = JSON.createObjectNode().put("name", routeName(ns, r.getMetadata().getName()));
        named.setAll(tree);
        Map<String, Upstream> serviceUpstreams = new LinkedHashMap<>();
        boolean passthrough = named.get("tlsPassthrough") instanceof ObjectNode;
        if (named.get("tlsPassthrough") instanceof ObjectNode tp) {
            if (spec.tls != null) {
                st.specErrors.add("spec.tls: a Route with tlsPassthrough takes no tls: its backend ends TLS with its own"
                        + " certificate");
            }
            passthrough(tp, ns, st, endpoints, upstreams, serviceUpstreams);
        }
        // Resolved before the rules: until its hosts can ask for client certificates, they are locked.
        boolean asksForCertificates = !passthrough && spec.tls != null && spec.tls.clientValidation != null;
        Config.ClientValidation policy = null;
        boolean locked = false;
        if (asksForCertificates) {
            policy = clientValidation(spec, named, ns, secrets, st);
            locked = policy == null && st.specErrors.isEmpty(); // with a spec error it is not served at all
        }
        JsonNode rules = named.get("rules");
        if (rules != null && rules.isArray()) {
            for (int i = 0; i < rules.size(); i++) {
                JsonNode rule = rules.get(i);
                st.implicitMatches.add(rule.isObject() && !rule.has("matches"));
                if (locked && rule instanceof ObjectNode ruleNode) {
                    lock(ruleNode);
                }
                if (rule instanceof ObjectNode ruleNode && ruleNode.get("basicAuth") instanceof ObjectNode auth) {
                    basicAuth(ruleNode, auth, "spec.rules[" + i + "].basicAuth.secretName", ns, secrets, st);
                }
                if (rule.get("errorPages") instanceof ObjectNode pages && pages.get("backend") instanceof ObjectNode b) {
                    // The page's source resolves as any backend; the model names only its upstream.
                    backend(b, "spec.rules[" + i + "].errorPages.backend", ns, st, endpoints, upstreams, serviceUpstreams);
                    pages.set("upstream", b.get("upstream"));
                    pages.remove("backend");
                }
                if (rule instanceof ObjectNode ruleNode && ruleNode.get("forwardAuth") instanceof ObjectNode auth
                        && auth.get("backend") instanceof ObjectNode b) {
                    forwardAuth(ruleNode, auth, b, "spec.rules[" + i + "].forwardAuth.backend", ns, st, endpoints,
                            upstreams, serviceUpstreams);
                }
                // After the guards: a rule they lock has no mirrors left (lock), so nothing unguarded is copied.
                if (rule instanceof ObjectNode ruleNode && ruleNode.get("mirrors") instanceof ArrayNode mirrors) {
                    mirrors(ruleNode, mirrors, "spec.rules[" + i + "].mirrors", ns, st, endpoints, upstreams,
                            serviceUpstreams, external);
                }
                JsonNode backends = rule.get("backends");
                if (backends == null || !backends.isArray()) {
                    continue;
                }
                for (int j = 0; j < backends.size(); j++) {
                    if (backends.get(j) instanceof ObjectNode b) {
                        backend(b, "spec.rules[" + i + "].backends[" + j + "]", ns, st, endpoints, upstreams,
                                serviceUpstreams, tls);
                        if (rule.has("fastcgi") && UNRESOLVED.equals(b.path("upstream").asText())) {
                            b.put("upstream", UNRESOLVED_FASTCGI);
                            st.declared.put(UNRESOLVED_FASTCGI, Upstream.Protocol.FASTCGI);
                        }
                    }
                }
            }
        }
        if (spec.tls != null && !asksForCertificates && !passthrough) {
            tls(spec.tls.secretName, ns, secrets, st);
        }
        ModelCheck.Checked<dev.strait.model.Route> checked = memo("R" + st.declared + named,
                () -> ModelCheck.route(named, st.declared));
        for (String e : checked.errors()) {
            // The model's upstream of a check, a page or a mirror is the resource's backend.
            st.specErrors.add(e.replace(".forwardAuth.upstream:", ".forwardAuth.backend:")
                    .replace(".errorPages.upstream:", ".errorPages.backend:")
                    .replaceFirst("(\\.mirrors\\[\\d+])\\.upstream:", "$1.backend:"));
        }
        // An unresolved reference degrades only what it names (ADR 0049): its backend answers 503 (a stand-in
        // upstream without endpoints), a missing certificate leaves the host to the listener's default one;
        // the Route keeps serving everything else, and keeps its claims against younger Routes.
        if (st.specErrors.isEmpty()) {
            st.model = checked.value();
            if (policy != null && !locked) {
                st.clientValidation = policy.withHosts(st.model.hosts());
            }
            for (String standIn : new String[] {UNRESOLVED, UNRESOLVED_FASTCGI}) {
                if (st.declared.containsKey(standIn) && uses(st.model, standIn)) {
                    st.upstreams.add(standIn);
                }
            }
            models.putAll(serviceUpstreams);
        }
        return st;
    }

    /**
     * Whether any rule names the upstream: as a backend, or as where its error pages, checks or copies go (the
     * snapshot must declare every upstream a rule names, or proxies refuse it whole).
     */
    private static boolean uses(dev.strait.model.Route route, String upstream) {
        if (route.tlsPassthrough() != null && route.tlsPassthrough().upstream().equals(upstream)) {
            return true;
        }
        for (dev.strait.model.Route.Rule rule : route.rules()) {
            if (rule.action() instanceof dev.strait.model.Route.Backends p
                    && p.backends().stream().anyMatch(b -> b.upstream().equals(upstream))) {
                return true;
            }
            if (rule.errorPages() != null && rule.errorPages().upstream().equals(upstream)
                    || rule.forwardAuth() != null && upstream.equals(rule.forwardAuth().upstream())
                    || rule.mirrors().stream().anyMatch(m -> m.upstream().equals(upstream))) {
                return true;
            }
        }
        return false;
    }

    private static void backend(ObjectNode b, String path, String ns, RouteState st, ServiceEndpoints endpoints,
                                Map<String, UpstreamState> upstreams, Map<String, Upstream> serviceUpstreams) {
        backend(b, path, ns, st, endpoints, upstreams, serviceUpstreams, null);
    }

    /** Whether an upstream adds nothing to the bytes it is given: it can take passed-through TLS connections. */
    private static boolean plain(Upstream u) {
        return u.protocol() == Upstream.Protocol.HTTP1 && u.tls() == null && u.healthCheck() == null;
    }

    /**
     * A Route's {@code tlsPassthrough} as the model's: an Upstream that adds nothing to the bytes, or a plain upstream
     * of the Service's endpoints ({@link #passthroughUpstreamName}). One that cannot be used is an unresolved reference
     * (ADR 0049): the hosts stay the Route's, their connections closed for want of endpoints, and are never served
     * with TLS ended here instead.
     */
    private static void passthrough(ObjectNode tp, String ns, RouteState st, ServiceEndpoints endpoints,
                                    Map<String, UpstreamState> upstreams, Map<String, Upstream> serviceUpstreams) {
        String path = "spec.tlsPassthrough";
        JsonNode up = tp.get("upstream");
        JsonNode svc = tp.get("service");
        if (up != null && up.isTextual() && up.asText().equals(IngressRoutes.UNRESOLVED)) {
            // an Ingress backend that could not be rewritten; its error is reported with the Ingress's fields
            tp.put("upstream", UNRESOLVED);
            st.declared.put(UNRESOLVED, Upstream.Protocol.HTTP1);
        } else if (up != null && up.isTextual()) {
            UpstreamState target = upstreams.get(ns + "/" + up.asText());
            if (target == null) {
                st.refError(tp, "BackendNotFound", path + ".upstream: Upstream \"" + up.asText() + "\" not found");
            } else if (target.model == null) {
                st.refError(tp, "InvalidBackend", path + ".upstream: Upstream \"" + up.asText() + "\" is not valid: "
                        + String.join("; ", target.unusable()));
            } else if (!plain(target.model)) {
                Upstream u = target.model;
                List<String> adds = new ArrayList<>();
                if (u.protocol() != Upstream.Protocol.HTTP1) {
                    adds.add("protocol " + u.protocol().name().toLowerCase(java.util.Locale.ROOT));
                }
                if (u.tls() != null) {
                    adds.add("tls");
                }
                if (u.healthCheck() != null) {
                    adds.add("healthCheck");
                }
                st.refError(tp, "InvalidBackend", path + ".upstream: Upstream \"" + up.asText() + "\" gets the client's TLS"
                        + " bytes as they are: it takes no protocol, tls or healthCheck, and has " + String.join(", ", adds)
                        + "; the hosts' connections are closed until it has none (or name the Service instead)");
            } else {
                st.use(tp, target.model.name(), Upstream.Protocol.HTTP1);
            }
        } else if (svc != null && svc.isObject() && svc.path("name").isTextual() && svc.path("port").isInt()) {
            String name = svc.get("name").asText();
            int port = svc.get("port").asInt();
            String target = svc.path("namespace").isTextual() ? svc.get("namespace").asText() : ns;
            ServiceEndpoints.Resolution res = endpoints.resolve(ns, target, name, port);
            if (!res.ok()) {
                st.refError(tp, res.reason(), path + ".service." + res.field() + ": " + res.error());
                return;
            }
            Upstream made = serviceUpstream(passthroughUpstreamName(target, name, port), res, null,
                    ServiceBalancing.DEFAULT, port, null);
            serviceUpstreams.put(made.name(), made);
            st.use(tp, made.name(), Upstream.Protocol.HTTP1);
        } else {
            st.specErrors.add(path + ": names either an upstream or a service {name, port}");
        }
    }

    /** @param tls how a Service backend spoken to over TLS is, or null for unchecked TLS */
    private static void backend(ObjectNode b, String path, String ns, RouteState st, ServiceEndpoints endpoints,
                                Map<String, UpstreamState> upstreams, Map<String, Upstream> serviceUpstreams,
                                ServiceTls tls) {
        JsonNode up = b.get("upstream");
        JsonNode svc = b.get("service");
        if (up != null && up.isTextual() && up.asText().equals(IngressRoutes.UNRESOLVED)) {
            // an Ingress backend that could not be rewritten; its error is reported with the Ingress's fields
            b.put("upstream", UNRESOLVED);
            st.declared.put(UNRESOLVED, Upstream.Protocol.HTTP1);
        } else if (up != null && up.isTextual()) {
            UpstreamState target = upstreams.get(ns + "/" + up.asText());
            if (target == null) {
                st.refError(b, "BackendNotFound", path + ".upstream: Upstream \"" + up.asText() + "\" not found");
            } else if (target.model == null) {
                st.refError(b, "InvalidBackend", path + ".upstream: Upstream \"" + up.asText() + "\" is not valid: "
                        + String.join("; ", target.unusable()));
            } else {
                st.use(b, target.model.name(), target.model.protocol());
            }
        } else if (svc != null && svc.isObject() && svc.path("name").isTextual() && svc.path("port").isInt()) {
            String name = svc.get("name").asText();
            int port = svc.get("port").asInt();
            String target = svc.path("namespace").isTextual() ? svc.get("namespace").asText() : ns;
            // Not a field of the model's backend: it chooses the upstream made for the Service.
            String protocol = b.path("protocol").isTextual() ? b.get("protocol").asText() : null;
            b.remove("protocol");
            List<String> balancingErrors = new ArrayList<>();
            ServiceBalancing balancing = ServiceBalancing.of(b, path, balancingErrors);
            b.remove(List.of("sessionAffinity", "loadBalancer", "hashOn", "connectTimeout", "useClusterIP"));
            if (!balancingErrors.isEmpty()) {
                st.specErrors.addAll(balancingErrors);
                b.remove("service"); // the error is the spec's; the model's parser need not add its own
                b.put("upstream", UNRESOLVED);
                st.declared.put(UNRESOLVED, Upstream.Protocol.HTTP1);
                return;
            }
            ServiceEndpoints.Resolution res = endpoints.resolve(ns, target, name, port);
            if (!res.ok()) {
                st.refError(b, res.reason(), path + ".service." + res.field() + ": " + res.error());
                return;
            }
            if (balancing.clusterIp() && !res.byName() && res.clusterIp() == null) {
                st.refError(b, "BackendNotFound", path + ".useClusterIP: Service \"" + name + "\" has no cluster IP"
                        + " (headless); its pods can be reached only through its endpoints");
                return;
            }
            if (protocol == null) {
                protocol = res.protocol(); // the backend's protocol wins over the Service port's appProtocol
            }
            Upstream.Tls given = null;
            if (tls != null && overTls(protocol)) {
                if (tls.error() != null) {
                    // Never the backend unchecked, or without the client certificate it asks for: 503 until it resolves.
                    st.refError(b, tls.reason(), tls.error());
                    return;
                }
                given = tls.tls();
            }
            Upstream made = serviceUpstream(serviceUpstreamName(target, name, port, protocol, balancing, given), res,
                    protocol, balancing, port, given);
            serviceUpstreams.put(made.name(), made);
            st.use(b, made.name(), made.protocol());
        } else {
            st.specErrors.add(path + ": names either an upstream or a service {name, port}");
        }
    }

    /**
     * A Route's {@code spec.tls.clientValidation} as the https listener's settings for its hosts (without the hosts,
     * known once the Route is checked), its certificate resolved with it. Binds the Route to https alone: on plain
     * HTTP a request would reach its rules without a certificate check. A spec error is added to {@code st}; a CA or
     * certificate that does not resolve is an unresolved reference, and the Route's rules answer 503 until it does:
     * a host of the Route served without the check would let in every client. Null when the check cannot be made.
     */
    private static Config.ClientValidation clientValidation(RouteSpec spec, ObjectNode named, String ns,
                                                            Map<String, Secret> secrets, RouteState st) {
        RouteSpec.ClientValidation cv = spec.tls.clientValidation;
        int specErrors = st.specErrors.size();
        if (spec.listeners != null && spec.listeners.contains(ProxyDefaults.HTTP)) {
            st.specErrors.add("spec.listeners: a Route with " + CLIENT_VALIDATION + " is served on https only (on http a"
                    + " request would reach its rules without a certificate check); leave listeners out or give [ https ]");
        } else {
            named.putArray("listeners").add(ProxyDefaults.HTTPS);
        }
        if (spec.tls.secretName == null) {
            st.specErrors.add("spec.tls.secretName: is required with clientValidation: the hosts ask for client"
                    + " certificates in a TLS handshake with the Route's own certificate");
        }
        Config.ClientValidationMode mode = cv.mode == null ? Config.ClientValidationMode.REQUIRE : switch (cv.mode) {
            case REQUIRE -> Config.ClientValidationMode.REQUIRE;
            case OPTIONAL -> Config.ClientValidationMode.OPTIONAL;
            case OPTIONAL_NO_CA -> Config.ClientValidationMode.OPTIONAL_NO_CA;
        };
        if (cv.caSecretName == null && mode != Config.ClientValidationMode.OPTIONAL_NO_CA) {
            st.specErrors.add(CLIENT_VALIDATION + ".caSecretName: is required unless mode is optional-no-ca (the CAs"
                    + " that issue client certificates)");
        }
        int depth = cv.verifyDepth == null ? Config.ClientValidation.DEFAULT_VERIFY_DEPTH : cv.verifyDepth;
        if (depth < 1 || depth > 10) {
            st.specErrors.add(CLIENT_VALIDATION + ".verifyDepth: must be a whole number 1..10");
        }
        if (cv.subjectMatch != null) {
            try {
                java.util.regex.Pattern.compile(cv.subjectMatch);
            } catch (java.util.regex.PatternSyntaxException e) {
                st.specErrors.add(CLIENT_VALIDATION + ".subjectMatch: not a valid regular expression: "
                        + e.getDescription());
            }
        }
        Config.ClientOcsp ocsp = cv.ocsp == null ? Config.ClientOcsp.OFF : switch (cv.ocsp) {
            case OFF -> Config.ClientOcsp.OFF;
            case LEAF -> Config.ClientOcsp.LEAF;
            case CHAIN -> Config.ClientOcsp.CHAIN;
        };
        if (ocsp != Config.ClientOcsp.OFF && cv.caSecretName == null) {
            st.specErrors.add(CLIENT_VALIDATION + ".ocsp: asks the CAs of caSecretName about certificates they issued:"
                    + " give it too");
        }
        if (cv.ocspResponder != null && ocsp == Config.ClientOcsp.OFF) {
            st.specErrors.add(CLIENT_VALIDATION + ".ocspResponder: is asked only with ocsp: leaf or chain");
        } else if (cv.ocspResponder != null && !dev.strait.model.ConfigParser.httpUrl(cv.ocspResponder)) {
            st.specErrors.add(CLIENT_VALIDATION + ".ocspResponder: must be an http(s) URL, got \"" + cv.ocspResponder
                    + "\"");
        }
        if (st.specErrors.size() > specErrors) {
            return null;
        }
        boolean ingress = named.path("name").asText().contains(INGRESS_PIECE);
        String answers = ingress ? "; the Ingress's paths answer 503" : "; the Route's rules answer 503";
        int reported = st.refErrors.size();
        tls(spec.tls.secretName, ns, secrets, st);
        boolean certified = st.certificate != null || st.defaultCertificate;
        if (!certified) {
            // Without its own certificate the host would be left to another's, which may not be the one meant.
            for (int k = reported; k < st.refErrors.size(); k++) {
                st.refErrors.set(k, st.refErrors.get(k) + answers + " (its hosts ask for client certificates)");
            }
        }
        String ca = null;
        String crl = null;
        if (cv.caSecretName != null) {
            String path = CLIENT_VALIDATION + ".caSecretName";
            SecretLookup found = secret(secrets, ns, cv.caSecretNamespace, cv.caSecretName);
            Secret s = found.secret();
            String pem = s == null || s.getData() == null ? null : pem(s.getData().get(CA_KEY));
            String problem = s == null ? null : pem == null ? "needs PEM data in " + CA_KEY : TlsMaterial.caProblem(pem);
            if (s == null) {
                st.refError(null, found.reason(), path + ": " + found.error() + answers);
            } else if (problem != null) {
                st.refError(null, "InvalidSecret", path + ": Secret \"" + cv.caSecretName + "\" " + problem + answers);
            } else {
                ca = pem;
                // ingress-nginx's auth-tls-secret may hold revocation lists beside the CAs: a list that cannot be
                // used must not be dropped (the certificates it revokes would get in), so the paths answer 503.
                String rawCrl = s.getData().get(CRL_KEY);
                if (rawCrl != null) {
                    crl = pem(rawCrl);
                    String crlProblem = crl == null ? "needs PEM data in " + CRL_KEY : TlsMaterial.crlProblem(crl, ca);
                    if (crlProblem != null) {
                        st.refError(null, "InvalidSecret", path + ": Secret \"" + cv.caSecretName + "\" " + crlProblem
                                + answers);
                        ca = null;
                    }
                }
            }
        }
        if (!certified || cv.caSecretName != null && ca == null) {
            return null;
        }
        return new Config.ClientValidation(List.of(), ca, mode, depth, cv.subjectMatch,
                Boolean.TRUE.equals(cv.forwardCertificate), crl, cv.errorPage, ocsp, cv.ocspResponder);
    }

    /** A Secret reference resolved: the Secret, or the condition reason and the message saying why not. */
    record SecretLookup(Secret secret, String reason, String error) {
        /** What the reference resolves to, for a Route's reference fingerprint (its data, or why there is none). */
        String fingerprint() {
            return secret == null ? "?" + error : String.valueOf(secret.getData() == null ? 0 : secret.getData().hashCode());
        }
    }

    /**
     * The Secret {@code name} named by a resource of namespace {@code ns}: of its own namespace, or of {@code namespace}
     * when that Secret accepts references from {@code ns} ({@link Consent}, ADR 0078).
     */
    static SecretLookup secret(Map<String, Secret> secrets, String ns, String namespace, String name) {
        boolean other = namespace != null && !namespace.equals(ns);
        Secret s = name == null ? null : secrets.get((other ? namespace : ns) + "/" + name);
        if (s == null) {
            return new SecretLookup(null, "SecretNotFound", "Secret \"" + name + "\""
                    + (other ? " of namespace \"" + namespace + "\"" : "") + " not found");
        }
        if (other && !Consent.accepts(s, ns)) {
            return new SecretLookup(null, "RefNotPermitted", Consent.refused("Secret", name, namespace, ns));
        }
        return new SecretLookup(s, null, null);
    }

    /**
     * What an Ingress's {@code proxy-ssl-*} come to for its Service backends spoken to over TLS: the TLS, or why they
     * answer 503 ({@code reason}, {@code error}); {@code fingerprint} is what its Secret resolved to, for the Route's
     * references, so a changed Secret (or consent) applies at the next translation.
     */
    private record ServiceTls(Upstream.Tls tls, String reason, String error, String fingerprint) {}

    /** Whether a Service backend's protocol ({@code null}: http1) is spoken over TLS. */
    private static boolean overTls(String protocol) {
        return "https".equals(protocol) || "h2".equals(protocol);
    }

    /**
     * The TLS {@code proxy-ssl-*} ask for, the Ingress being of namespace {@code ns}: with {@code verify}, the Secret's
     * {@code ca.crt} is what the backends' certificates are checked against (required); its {@code tls.crt} and
     * {@code tls.key}, when there, the client certificate presented, checked or not, as nginx does. A Secret of another
     * namespace needs its consent (ADR 0078). What cannot be had is an unresolved reference naming the annotation.
     * The PEM is checked once per content of the Secret (a key's check signs), not at every translation.
     */
    private ServiceTls serviceTls(IngressAnnotations.BackendTls spec, String ns, Map<String, Secret> secrets) {
        if (spec.secretName() == null) {
            return new ServiceTls(new Upstream.Tls(null, spec.serverName(), null, null, spec.verify()), null, null, "");
        }
        String field = IngressAnnotations.field(IngressAnnotations.PROXY_SSL_SECRET);
        String answers = "; the Ingress's paths answer 503";
        SecretLookup found = secret(secrets, ns, spec.secretNamespace(), spec.secretName());
        if (found.secret() == null) {
            return new ServiceTls(null, found.reason(), field + ": " + found.error() + answers, found.fingerprint());
        }
        return memo("T" + ns + "|" + spec + "|" + found.fingerprint(), () -> serviceTls(spec, found));
    }

    /** The TLS of {@link #serviceTls(IngressAnnotations.BackendTls, String, Map)} from the Secret {@code found}. */
    private static ServiceTls serviceTls(IngressAnnotations.BackendTls spec, SecretLookup found) {
        String answers = "; the Ingress's paths answer 503";
        Map<String, String> data = found.secret().getData() == null ? Map.of() : found.secret().getData();
        String secret = IngressAnnotations.field(IngressAnnotations.PROXY_SSL_SECRET) + ": Secret \"" + spec.secretName()
                + "\"";
        String ca = null;
        if (spec.verify()) {
            ca = pem(data.get(CA_KEY));
            String problem = ca == null ? "needs PEM data in " + CA_KEY + " (the CAs the backends' certificates are"
                    + " checked against)" : TlsMaterial.caProblem(ca);
            if (problem != null) {
                return new ServiceTls(null, "InvalidSecret", secret + " " + problem + answers, found.fingerprint());
            }
        }
        String cert = null;
        String key = null;
        if (data.containsKey(CERT_KEY) || data.containsKey(KEY_KEY)) {
            cert = pem(data.get(CERT_KEY));
            key = pem(data.get(KEY_KEY));
            boolean both = cert != null && key != null;
            String problem = both ? TlsMaterial.problem(cert, key)
                    : "needs PEM data in both " + CERT_KEY + " and " + KEY_KEY + " (the client certificate it holds)";
            if (problem != null) {
                return new ServiceTls(null, "InvalidSecret", secret + (both ? ": " : " ") + problem + answers,
                        found.fingerprint());
            }
        }
        return new ServiceTls(new Upstream.Tls(ca, spec.serverName(), cert, key, spec.verify(), spec.verifyDepth()),
                null, null, found.fingerprint());
    }

    /** The keys of a {@code kubernetes.io/tls} Secret: the certificate chain and its private key, PEM. */
    static final String CERT_KEY = "tls.crt";
    static final String KEY_KEY = "tls.key";

    /** The key of a CA Secret that holds revocation lists of its CAs (PEM {@code X509 CRL}), as ingress-nginx reads it. */
    static final String CRL_KEY = "ca.crl";

    /** The key of a CA Secret that holds the PEM certificates, as cert-manager and ingress-nginx write it. */
    static final String CA_KEY = "ca.crt";

    /**
     * A rule's {@code basicAuth.secretName} as the proxy's inline {@code htpasswd}: the Secret's {@code auth}
     * lines that can be checked (others are reported). Without one such user the rule is locked: it answers
     * 503, as ingress-nginx answers a location whose auth it cannot read, and never serves unauthenticated.
     */
    private static void basicAuth(ObjectNode rule, ObjectNode auth, String path, String ns, Map<String, Secret> secrets,
                                  RouteState st) {
        String name = auth.path("secretName").asText(null);
        boolean map = "auth-map".equals(auth.path("secretType").asText(null));
        auth.remove("secretType");
        SecretLookup found = secret(secrets, ns, auth.path("secretNamespace").asText(null), name);
        auth.remove("secretNamespace");
        Secret s = found.secret();
        String text = s == null ? null : map ? mapLines(s.getData() == null ? Map.of() : s.getData())
                : s.getData() == null ? null : decoded(s.getData().get(AUTH_KEY));
        if (s == null) {
            st.refError(null, found.reason(), path + ": " + found.error() + "; the rule answers 503");
        } else if (text == null) {
            st.refError(null, "InvalidSecret", path + ": Secret \"" + name + "\" has no \"" + AUTH_KEY
                    + "\" key (htpasswd lines); the rule answers 503");
        }
        StringBuilder users = new StringBuilder();
        if (text != null) {
            List<String> problems = new ArrayList<>();
            Htpasswd.parse(text, (line, why) -> problems.add("line " + line + ": " + why))
                    .forEach((user, hash) -> users.append(user).append(':').append(hash).append('\n'));
            for (String p : problems) {
                // an auth-map's lines are its keys, in order: name the user, not a line number
                String where = map ? p.replaceFirst("^line \\d+: ", "") : AUTH_KEY + " " + p;
                st.refError(null, "InvalidSecret", path + ": Secret \"" + name + "\" " + where
                        + "; that user is left out");
            }
            if (users.isEmpty()) {
                st.refError(null, "InvalidSecret", path + ": Secret \"" + name + "\" lists no user Strait can check;"
                        + " the rule answers 503");
            }
        }
        if (users.isEmpty()) {
            lock(rule);
            return;
        }
        auth.remove("secretName");
        auth.put("htpasswd", users.toString());
    }

    /**
     * A rule's {@code forwardAuth.backend} (under {@code path}) resolved as any backend; the model names only its
     * upstream. One that does not resolve locks the rule as a basicAuth without users does: the check keeps the
     * stand-in upstream (no endpoints, so it answers 503) and the action answers 503 as well, so the rule never
     * serves a request unchecked, whatever the check's failure comes to in the proxy.
     */
    private static void forwardAuth(ObjectNode rule, ObjectNode auth, ObjectNode b, String path, String ns, RouteState st,
                                    ServiceEndpoints endpoints, Map<String, UpstreamState> upstreams,
                                    Map<String, Upstream> serviceUpstreams) {
        int reported = st.refErrors.size();
        backend(b, path, ns, st, endpoints, upstreams, serviceUpstreams);
        auth.set("upstream", b.get("upstream"));
        auth.remove("backend");
        for (int k = reported; k < st.refErrors.size(); k++) {
            st.refErrors.set(k, st.refErrors.get(k) + "; the rule answers 503");
        }
        if (UNRESOLVED.equals(auth.path("upstream").asText())) {
            lock(rule);
        }
    }

    /**
     * A rule's {@code mirrors} (under {@code path}), each backend resolved as any other; the model names only its
     * upstream. A mirror whose backend does not resolve, or is a FastCGI Upstream (copies are HTTP requests), is left
     * out and reported as an unresolved reference: unlike a guard it protects nothing, so the rule serves as it would
     * without it, and the Route is not refused for it. {@code external}: the upstream an Ingress's mirror-target
     * outside the cluster names as {@link IngressRoutes#EXTERNAL}, or null.
     */
    private static void mirrors(ObjectNode rule, ArrayNode mirrors, String path, String ns, RouteState st,
                                ServiceEndpoints endpoints, Map<String, UpstreamState> upstreams,
                                Map<String, Upstream> serviceUpstreams, Upstream external) {
        ArrayNode kept = mirrors.arrayNode();
        for (int j = 0; j < mirrors.size(); j++) {
            if (!(mirrors.get(j) instanceof ObjectNode m) || !(m.get("backend") instanceof ObjectNode b)) {
                kept.add(mirrors.get(j)); // the model's parser names what is missing
                continue;
            }
            String at = path + "[" + j + "].backend";
            String named = b.path("upstream").asText(null);
            // What the rule used before, so that a mirror left out leaves nothing of its own in the snapshot.
            Set<String> used = new TreeSet<>(st.upstreams);
            Map<String, Upstream.Protocol> declared = new TreeMap<>(st.declared);
            int reported = st.refErrors.size();
            if (external != null && IngressRoutes.EXTERNAL.equals(named)) {
                serviceUpstreams.put(external.name(), external);
                st.use(b, external.name(), external.protocol());
            } else {
                backend(b, at, ns, st, endpoints, upstreams, serviceUpstreams);
            }
            String upstream = b.path("upstream").asText();
            boolean fastcgi = st.declared.get(upstream) == Upstream.Protocol.FASTCGI;
            if (fastcgi) {
                st.refError(null, "InvalidBackend", at + ".upstream: Upstream \"" + named + "\" speaks fastcgi, and a"
                        + " mirror's copies are HTTP requests");
            }
            if (fastcgi || UNRESOLVED.equals(upstream)) {
                st.upstreams.clear();
                st.upstreams.addAll(used);
                st.declared.clear();
                st.declared.putAll(declared);
                for (int k = reported; k < st.refErrors.size(); k++) {
                    st.refErrors.set(k, st.refErrors.get(k) + "; the mirror is left out");
                }
                continue;
            }
            m.set("upstream", b.get("upstream")); // the backend's weight and settings are not the mirror's
            m.remove("backend");
            kept.add(m);
        }
        if (kept.isEmpty()) {
            rule.remove("mirrors");
        } else {
            rule.set("mirrors", kept);
        }
    }

    /**
     * A guarded rule whose guard cannot be had: every action and setting that needs one dropped, its only backend
     * the stand-in an unresolved Ingress backend gets (the backends pass makes it the 503 upstream). Its mirrors go
     * too: without its basicAuth the stand-in serves every request, and no copy of one may reach a mirror unguarded.
     */
    private static void lock(ObjectNode rule) {
        for (String action : new String[] {"respond", "files", "redirect", "backends", "fastcgi", "pathRewrite",
                "hostRewrite", "cache", "retries", "timeouts", "basicAuth", "satisfy", "mirrors", "responseRewrite",
                "requestBuffering", "responseRate", "compression"}) {
            rule.remove(action);
        }
        rule.putArray("backends").addObject().put("upstream", IngressRoutes.UNRESOLVED);
    }

    /** An {@code auth-map} Secret (a key per user, the hash its value) as htpasswd lines, keys in order. */
    private static String mapLines(Map<String, String> data) {
        StringBuilder lines = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(data).entrySet()) {
            String hash = decoded(e.getValue());
            if (hash != null) {
                lines.append(e.getKey()).append(':').append(hash.strip()).append('\n');
            }
        }
        return lines.toString();
    }

    /** The Secret key that holds htpasswd lines, ingress-nginx's {@code auth-file} format. */
    static final String AUTH_KEY = "auth";

    private static String decoded(String base64) {
        if (base64 == null) {
            return null;
        }
        try {
            return new String(Base64.getMimeDecoder().decode(base64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static void tls(String secretName, String ns, Map<String, Secret> secrets, RouteState st) {
        if (IngressRoutes.DEFAULT_CERTIFICATE.equals(secretName)) {
            // An Ingress host with TLS and no Secret of its own: the https listener's first certificate answers it, the
            // operator's default one, which the Ingress's Routes are made with only while it can be used (ADR 0096).
            st.defaultCertificate = true;
            return;
        }
        TlsSecret found = tlsSecret(secretName == null ? null : secrets.get(ns + "/" + secretName));
        if (found.certificate() == null) {
            st.refError(null, found.reason(), "spec.tls.secretName: Secret \"" + secretName + "\"" + found.problem());
            return;
        }
        st.certificate = found.certificate();
    }

    /**
     * A {@code kubernetes.io/tls} Secret's certificate and key as a proxy will load them, or, without them, the reason
     * and what is wrong, to follow the Secret's name ({@code " not found"}, {@code ": the key does not match ..."}).
     */
    record TlsSecret(Config.Certificate certificate, String reason, String problem) {}

    /** {@code s}'s certificate and key, checked as a proxy would (a bad one would make it refuse the whole snapshot). */
    static TlsSecret tlsSecret(Secret s) {
        if (s == null) {
            return new TlsSecret(null, "SecretNotFound", " not found");
        }
        Map<String, String> data = TLS_SECRET.equals(s.getType()) && s.getData() != null ? s.getData() : Map.of();
        String cert = pem(data.get("tls.crt"));
        String key = pem(data.get("tls.key"));
        if (cert == null || key == null) {
            return new TlsSecret(null, "InvalidSecret", " needs PEM data in tls.crt and tls.key (type kubernetes.io/tls)");
        }
        String problem = TlsMaterial.problem(cert, key);
        if (problem != null) {
            return new TlsSecret(null, "InvalidSecret", ": " + problem);
        }
        return new TlsSecret(new Config.Certificate(cert, key), null, null);
    }

    private static String pem(String base64) {
        if (base64 == null) {
            return null;
        }
        try {
            String text = new String(Base64.getMimeDecoder().decode(base64), StandardCharsets.UTF_8);
            return text.contains("-----BEGIN ") ? text : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
