package dev.strait.operator.translate;

import dev.strait.model.ConfigParser;
import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.RouteSpec;
import dev.strait.operator.crd.ServiceRef;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.HTTPIngressPath;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressBackend;
import io.fabric8.kubernetes.api.model.networking.v1.IngressClass;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.IngressTLS;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A standard {@code networking.k8s.io/v1} Ingress rewritten as Routes, one per host, so that it goes
 * through exactly the same resolution, validation, conflict and snapshot steps as a Route (ADR 0012, docs/adr/0012-standard-ingress.md).
 *
 * <ul>
 *   <li>{@code pathType} {@code Exact} and {@code Prefix} keep their meaning (the proxy's Prefix matches
 *       whole path elements, as Ingress requires); {@code ImplementationSpecific} is {@code Prefix}.</li>
 *   <li>A rule without {@code host} serves any host ({@code *}). Rules of one host are merged, in order.</li>
 *   <li>{@code defaultBackend} answers what no path of a host matches, and any host the Ingress does not
 *       name: a catch-all Route of its own ({@code NS.NAME..ingress-N-default}) on every host of the Ingress
 *       and on {@code *}, which loses to the paths of every Ingress and Route of the host (ADR 0056).</li>
 *   <li>A backend's Service port by number or by name; {@code resource} backends are refused.</li>
 *   <li>{@code tls[]}: a host takes the Secret of the first entry listing it (or listing no hosts); listed only in
 *       entries without {@code secretName}, it takes the operator's default certificate ({@code --default-ssl-certificate},
 *       ADR 0096), or, without a usable one, stays plain HTTP, reported. With
 *       {@code auth-tls-secret} that TLS asks the host's clients for certificates ({@code tls.clientValidation}) and
 *       the host is served on https alone, {@code ssl-redirect: "false"} or not; a host without TLS answers 503.</li>
 *   <li>ssl-redirect, as ingress-nginx by default: a host with TLS is served on the {@code https} listener
 *       only, and a second Route on {@code http} answers its requests with a 308 to https; the annotation
 *       {@code nginx.ingress.kubernetes.io/ssl-redirect: "false"} keeps the host on both listeners, and
 *       {@code force-ssl-redirect: "true"} redirects a host without TLS too.</li>
 *   <li>HSTS, as ingress-nginx by default: the Routes of a host with TLS (its paths, its defaultBackend, a
 *       {@code from-to-www-redirect} twin with TLS) take the operator's {@code hsts} ({@code --ingress-hsts}); a
 *       host without, the Route redirecting plain requests to https, and a passed-through host take none.</li>
 *   <li>ingress-nginx's {@code permanent-redirect} and {@code temporal-redirect}: every rule of the Ingress
 *       answers with that redirect; {@code rewrite-target} is the rules' {@code pathRewrite}
 *       ({@link IngressAnnotations}, ADR 0054); with {@code use-regex} or {@code $n} targets a host's paths become
 *       nginx's case-insensitive regexes, longest first, and the defaultBackend of that host a regex after them
 *       (ADR 0058).</li>
 * </ul>
 * Errors name the Ingress's own fields ({@code spec.rules[0].http.paths[1].backend.service.name: ...}).
 */
final class IngressRoutes {
    /** The {@code spec.controller} of IngressClasses this operator serves. */
    static final String CONTROLLER = "strait.dev/ingress-controller";
    static final String DEFAULT_CLASS_ANNOTATION = "ingressclass.kubernetes.io/is-default-class";
    static final String LEGACY_CLASS_ANNOTATION = "kubernetes.io/ingress.class";
    /** A backend that could not be resolved before translation; never a valid Kubernetes name. */
    static final String UNRESOLVED = "-unresolved-";
    /**
     * A mirror's backend that is the host of a {@code mirror-target} outside the cluster: the upstream its piece
     * carries ({@link Piece#external}). Never a valid Kubernetes name, so no Route can name it.
     */
    static final String EXTERNAL = "-external-";
    /**
     * The {@code tls.secretName} of a host served with the operator's default certificate ({@code spec.tls} lists it
     * without a {@code secretName}, ADR 0096): the https listener's first certificate answers it. Never a valid
     * Kubernetes name, so no Route can name it.
     */
    static final String DEFAULT_CERTIFICATE = "-default-certificate-";
    /** ingress-nginx's annotation; {@code "false"} turns off the redirect of TLS hosts to https. */
    static final String SSL_REDIRECT_ANNOTATION = IngressAnnotations.SSL_REDIRECT;
    /** The reason of an Ingress's ResolvedRefs when an annotation cannot be expressed (its paths answer 503). */
    static final String UNSUPPORTED_ANNOTATION = "UnsupportedAnnotation";
    /**
     * The reason of an Ingress's ResolvedRefs when a path is one the config model refuses (it can never meet a
     * request): that path is left out, the rest of the Ingress serves.
     */
    static final String INVALID_PATH = "InvalidPath";
    /** Appended to the name of a TLS host's Route for the Route that redirects its plain requests. */
    static final String TO_HTTPS = "-to-https";
    /** Appended to the name of a host's Route for the Route of the Ingress's {@code defaultBackend} on that host. */
    static final String DEFAULT_BACKEND = "-default";
    /** Appended to the name of a host's Route for the Route that redirects the host's www twin to it. */
    static final String FROM_TO_WWW = "-www";

    private IngressRoutes() {}

    /**
     * One host of an Ingress (or a whole Route) as a Route, with the Ingress fields its Route fields
     * came from and the errors found while rewriting it; {@code backendTls}: the Ingress's {@code proxy-ssl-*}, for
     * the rules' Service backends spoken to over TLS (null: unchecked TLS, the only kind a Route's backend has);
     * {@code external}: the upstream of its {@code mirror-target} outside the cluster, which its rules' mirrors name
     * as {@link #EXTERNAL}, or null.
     */
    record Piece(Route route, Map<String, String> paths, List<String> refErrors, String refReason,
                 IngressAnnotations.BackendTls backendTls, dev.strait.model.Upstream external) {
        Piece(Route route, Map<String, String> paths, List<String> refErrors) {
            this(route, paths, refErrors, null, null);
        }

        Piece(Route route, Map<String, String> paths, List<String> refErrors, String refReason,
              IngressAnnotations.BackendTls backendTls) {
            this(route, paths, refErrors, refReason, backendTls, null);
        }

        static Piece of(Route r) {
            return new Piece(r, Map.of(), List.of());
        }

        /** A message about the Route's fields, about the Ingress's fields instead. */
        String rewrite(String message) {
            for (Map.Entry<String, String> e : paths.entrySet()) {
                String from = e.getKey();
                if (message.startsWith(from) && message.length() > from.length()
                        && (message.charAt(from.length()) == '.' || message.charAt(from.length()) == ':'
                        || message.charAt(from.length()) == '[')) {
                    return e.getValue() + message.substring(from.length());
                }
            }
            return message;
        }

        List<String> rewrite(List<String> messages) {
            return messages.stream().map(this::rewrite).toList();
        }
    }

    /**
     * The class an Ingress belongs to when this operator serves it, else null: {@code spec.ingressClassName}
     * (or the older annotation) naming an IngressClass whose controller is {@link #CONTROLLER}, or the
     * operator's default class; without either, the IngressClass of ours marked as the cluster default.
     */
    static String classOf(Ingress ing, List<IngressClass> classes, String defaultClass) {
        TreeSet<String> ours = new TreeSet<>();
        TreeSet<String> defaults = new TreeSet<>();
        for (IngressClass c : classes) {
            if (c.getSpec() != null && CONTROLLER.equals(c.getSpec().getController())) {
                ours.add(c.getMetadata().getName());
                Map<String, String> a = c.getMetadata().getAnnotations();
                if (a != null && "true".equals(a.get(DEFAULT_CLASS_ANNOTATION))) {
                    defaults.add(c.getMetadata().getName());
                }
            }
        }
        ours.add(defaultClass);
        String cls = ing.getSpec() == null ? null : ing.getSpec().getIngressClassName();
        if (cls == null || cls.isEmpty()) {
            Map<String, String> a = ing.getMetadata().getAnnotations();
            cls = a == null ? null : a.get(LEGACY_CLASS_ANNOTATION);
        }
        if (cls == null || cls.isEmpty()) {
            return defaults.isEmpty() ? null : defaults.first();
        }
        return ours.contains(cls) ? cls : null;
    }

    /**
     * Whether a model Route is the {@code defaultBackend} of an Ingress on one host: a catch-all that answers only
     * what no other Route of the host matches (ADR 0056). Only Ingress pieces have {@code ..} in their names, and
     * their other suffixes end in a digit or {@link #TO_HTTPS}.
     */
    /** Whether an Ingress is an ingress-nginx canary of another ({@code canary: "true"}, ADR 0063). */
    static boolean isCanary(Ingress ing) {
        Map<String, String> a = ing.getMetadata().getAnnotations();
        // ssl-passthrough leaves no annotation applied, canary among them: its hosts are passed through
        return a != null && "true".equals(a.get(IngressAnnotations.CANARY))
                && !"true".equals(a.get(IngressAnnotations.SSL_PASSTHROUGH));
    }

    static boolean isDefaultBackend(String modelName) {
        return modelName.endsWith(DEFAULT_BACKEND) && modelName.contains(Translator.INGRESS_PIECE);
    }

    /**
     * Whether the Route made for an Ingress answers only what no other Route of its host matches: the
     * {@code defaultBackend}, and the {@code from-to-www-redirect} of a host's twin (as in ingress-nginx, a
     * host some Ingress serves is not redirected).
     */
    static boolean yields(String modelName) {
        return isDefaultBackend(modelName)
                || modelName.endsWith(FROM_TO_WWW) && modelName.contains(Translator.INGRESS_PIECE);
    }

    /** The model name of the Route made for the {@code index}-th host of an Ingress ({@code ..} never occurs in a Route's name). */
    static String routeMetadataName(String name, int index) {
        return name + Translator.INGRESS_PIECE + index;
    }

    /**
     * The Ingress as Routes, one per host, in the order hosts first appear (then {@code *} for the default backend).
     * A path the config model refuses (it can never meet a request, so no rule, not even a 503, can stand for it)
     * is left out, and its error, naming the Ingress's field, goes to {@code leftOut}: the rest of the Ingress
     * serves, as with an unresolved backend (ADR 0049).
     */
    static List<Piece> pieces(Ingress ing, ServiceEndpoints endpoints, List<String> leftOut) {
        return pieces(ing, endpoints, leftOut, Set.of());
    }

    /**
     * The hosts of an Ingress whose paths it makes regexes by itself ({@code use-regex} with a path that needs one,
     * a {@code rewrite-target} with groups): ingress-nginx then makes every path of the host a regex, in every
     * Ingress of the host (ADR 0074). Empty for most Ingresses, found without reading their annotations.
     */
    static Set<String> regexHosts(Ingress ing) {
        Map<String, String> a = ing.getMetadata().getAnnotations();
        if (ing.getSpec() == null || a == null
                || !a.containsKey(IngressAnnotations.USE_REGEX) && !a.containsKey(IngressAnnotations.REWRITE_TARGET)) {
            return Set.of();
        }
        IngressAnnotations annotations = new IngressAnnotations(a, ing.getMetadata().getNamespace());
        boolean redirected = annotations.redirect != null || annotations.redirectError != null;
        Set<String> out = new TreeSet<>();
        for (Map.Entry<String, List<Object[]>> h : hostPaths(ing.getSpec(), null).entrySet()) {
            Paths p = Paths.of(h.getValue());
            for (IngressAnnotations.Rewritten rw : annotations.rewrite(p.types, p.values, p.fields, redirected)) {
                if (rw.type() == RouteSpec.PathType.RegularExpression) {
                    out.add(h.getKey());
                    break;
                }
            }
        }
        return out;
    }

    /** A host's paths as {@link IngressAnnotations#rewrite} takes them. */
    private record Paths(List<RouteSpec.PathType> types, List<String> values, List<String> fields) {
        static Paths of(List<Object[]> paths) {
            List<RouteSpec.PathType> types = new ArrayList<>();
            List<String> values = new ArrayList<>();
            List<String> fields = new ArrayList<>();
            for (Object[] p : paths) {
                HTTPIngressPath path = (HTTPIngressPath) p[0];
                types.add("Exact".equals(path.getPathType()) ? RouteSpec.PathType.Exact : RouteSpec.PathType.Prefix);
                values.add(path.getPath() == null || path.getPath().isEmpty() ? "/" : path.getPath());
                fields.add(p[1] + ".path");
            }
            return new Paths(types, values, fields);
        }
    }

    /**
     * The Ingress's paths by host ({@code *} for rules without one), in the order hosts first appear, each path with
     * the Ingress field it came from; {@code hostRule} (when given) takes each host's first rule.
     */
    private static Map<String, List<Object[]>> hostPaths(io.fabric8.kubernetes.api.model.networking.v1.IngressSpec spec,
                                                         Map<String, Integer> hostRule) {
        Map<String, List<Object[]>> hosts = new LinkedHashMap<>();
        List<IngressRule> rules = spec.getRules() == null ? List.of() : spec.getRules();
        for (int a = 0; a < rules.size(); a++) {
            IngressRule rule = rules.get(a);
            String host = rule.getHost() == null || rule.getHost().isEmpty() ? "*" : rule.getHost();
            List<Object[]> paths = hosts.computeIfAbsent(host, h -> new ArrayList<>());
            if (hostRule != null) {
                hostRule.putIfAbsent(host, a);
            }
            if (rule.getHttp() == null || rule.getHttp().getPaths() == null) {
                continue;
            }
            List<HTTPIngressPath> ps = rule.getHttp().getPaths();
            for (int b = 0; b < ps.size(); b++) {
                paths.add(new Object[] {ps.get(b), "spec.rules[" + a + "].http.paths[" + b + "]"});
            }
        }
        return hosts;
    }

    /**
     * As {@link #pieces(Ingress, ServiceEndpoints, List)}, the paths of the hosts in {@code hostRegex} as regexes
     * whatever they are, because another Ingress of the host makes them so ({@link #regexHosts}).
     */
    static List<Piece> pieces(Ingress ing, ServiceEndpoints endpoints, List<String> leftOut, Set<String> hostRegex) {
        return pieces(ing, endpoints, leftOut, hostRegex, ProxyDefaults.STANDARD);
    }

    /**
     * As {@link #pieces(Ingress, ServiceEndpoints, List, Set)}, under the controller's {@code defaults}: its tracing
     * (null for none), that the Ingress's OpenTelemetry annotations are compared with, and its cluster domain, in
     * which the annotations' URLs name Services.
     */
    static List<Piece> pieces(Ingress ing, ServiceEndpoints endpoints, List<String> leftOut, Set<String> hostRegex,
                              ProxyDefaults defaults) {
        return pieces(ing, endpoints, leftOut, hostRegex, defaults, Map.of());
    }

    /**
     * As {@link #pieces(Ingress, ServiceEndpoints, List, Set, ProxyDefaults)}, with the ConfigMaps
     * ({@code namespace/name}) that {@code custom-headers} may name: their fields go on every backend rule's answers.
     */
    static List<Piece> pieces(Ingress ing, ServiceEndpoints endpoints, List<String> leftOut, Set<String> hostRegex,
                              ProxyDefaults defaults, Map<String, io.fabric8.kubernetes.api.model.ConfigMap> configMaps) {
        return pieces(ing, endpoints, leftOut, hostRegex, defaults, configMaps, DefaultCertificate.NONE);
    }

    /**
     * As {@link #pieces(Ingress, ServiceEndpoints, List, Set, ProxyDefaults, Map)}, with the operator's default
     * certificate as the translation found it: the hosts a {@code spec.tls} entry lists without a {@code secretName}
     * are TLS hosts while it can be used, and plain ones, reported, while it cannot.
     */
    static List<Piece> pieces(Ingress ing, ServiceEndpoints endpoints, List<String> leftOut, Set<String> hostRegex,
                              ProxyDefaults defaults, Map<String, io.fabric8.kubernetes.api.model.ConfigMap> configMaps,
                              DefaultCertificate defaultCertificate) {
        String ns = ing.getMetadata().getNamespace();
        var spec = ing.getSpec();
        if (spec == null) {
            return List.of();
        }
        Map<String, Integer> hostRule = new LinkedHashMap<>();
        Map<String, List<Object[]>> hosts = hostPaths(spec, hostRule);
        IngressBackend fallback = spec.getDefaultBackend();
        if (fallback != null) {
            hosts.putIfAbsent("*", new ArrayList<>());
        }
        IngressAnnotations annotations = new IngressAnnotations(ing.getMetadata().getAnnotations(), ns, defaults.tracing(),
                defaults.clusterDomain());
        if (annotations.sslPassthrough) {
            return passthrough(ing, ns, spec, annotations, endpoints, leftOut);
        }
        // server-alias names more hosts for the Ingress's first host (ingress-nginx's server_name).
        String aliased = hosts.keySet().stream().filter(k -> !k.equals("*")).findFirst().orElse(null);
        List<String> served = new ArrayList<>(hosts.keySet());
        served.addAll(annotations.serverAliases);
        String mirrorLoop = mirrorLoop(annotations, served);
        RouteSpec.Mirror mirror = mirrorLoop == null ? annotations.mirror : null;
        dev.strait.model.Upstream external = mirror == null ? null : annotations.mirrorUpstream;
        CustomHeaders.Resolved custom = annotations.customHeaders == null ? null
                : CustomHeaders.resolve(annotations.customHeaders, ns, configMaps);
        RouteSpec.HeaderEdits customEdits = custom == null ? null : custom.edits();
        RouteSpec.Compression compression = compression(defaults.ingressCompression());
        RouteSpec.Hsts hsts = hsts(defaults.ingressHsts());
        // What the ConfigMap says of the Ingress, on its Routes (the report lists it once); its fields are in the rules,
        // so they key the pieces' memo (a changed ConfigMap changes no generation).
        List<String> customErrors = new ArrayList<>();
        if (custom != null) {
            customErrors.addAll(custom.warnings());
            if (custom.error() != null) {
                customErrors.add(custom.error());
            }
        }
        String customKey = custom == null ? "" : "~custom-headers" + custom.fingerprint();
        List<Piece> out = new ArrayList<>();
        int index = 0;
        for (Map.Entry<String, List<Object[]>> h : hosts.entrySet()) {
            if (h.getValue().isEmpty() && fallback == null) {
                continue;
            }
            Map<String, String> fields = new LinkedHashMap<>();
            List<String> errors = new ArrayList<>(annotations.problems());
            errors.addAll(annotations.warnings);
            if (mirrorLoop != null) {
                errors.add(mirrorLoop);
            }
            errors.addAll(customErrors);
            RouteSpec rs = new RouteSpec();
            List<String> names = new ArrayList<>(List.of(h.getKey()));
            if (h.getKey().equals(aliased)) {
                // not a host the Ingress already has
                for (String alias : annotations.serverAliases) {
                    if (!hosts.containsKey(alias) && !names.contains(alias)) {
                        fields.put("spec.hosts[" + names.size() + "]", IngressAnnotations.field(IngressAnnotations.SERVER_ALIAS));
                        names.add(alias);
                    }
                }
            }
            rs.hosts = List.copyOf(names);
            if (hostRule.containsKey(h.getKey())) {
                fields.put("spec.hosts[0]", "spec.rules[" + hostRule.get(h.getKey()) + "].host");
            }
            List<IngressTLS> tls = spec.getTls() == null ? List.of() : spec.getTls();
            int entry = h.getKey().equals("*") ? -1 : tlsEntry(tls, h.getKey(), true);
            String tlsProblem = null;
            if (entry >= 0 && !hasSecret(tls.get(entry)) && !defaultCertificate.usable()) {
                // Never some other host's certificate: the listener's first is no one's choice without the flag.
                tlsProblem = defaultCertificate.unusable("spec.tls[" + entry + "].secretName", h.getKey());
                errors.add(tlsProblem);
                entry = -1;
            }
            boolean byDefault = entry >= 0 && !hasSecret(tls.get(entry));
            if (entry >= 0) {
                rs.tls = new RouteSpec.Tls();
                rs.tls.secretName = byDefault ? DEFAULT_CERTIFICATE : tls.get(entry).getSecretName();
                if (annotations.clientValidation != null) {
                    // before spec.tls: a message about the check names the annotation, not the TLS entry
                    rs.tls.clientValidation = annotations.clientValidation;
                    String secret = IngressAnnotations.field(IngressAnnotations.AUTH_TLS_SECRET);
                    fields.put("spec.tls.clientValidation.caSecretName", secret);
                    fields.put("spec.tls.clientValidation", secret);
                }
                fields.put("spec.tls", "spec.tls[" + entry + "]");
            }
            // As ingress-nginx, which sends it on https for a host with a certificate (lua_ingress's header phase).
            rs.hsts = rs.tls == null ? null : hsts;
            // ingress-nginx asks for client certificates per host (server); a host without TLS cannot, and serving it
            // unchecked would open what the annotation closes: its paths answer 503.
            String noTls = annotations.clientValidation == null || rs.tls != null ? null
                    : IngressAnnotations.field(IngressAnnotations.AUTH_TLS_SECRET) + ": host \"" + h.getKey() + "\" has"
                            + " no TLS (a spec.tls entry with a Secret) to ask for client certificates with; its paths"
                            + " answer 503";
            if (noTls != null) {
                errors.add(noTls);
            }
            rs.rules = new ArrayList<>();
            boolean rootPrefix = false;
            boolean regexHost = false;
            boolean unsupported = !annotations.problems().isEmpty() || !annotations.warnings.isEmpty() || noTls != null
                    || mirrorLoop != null || custom != null && !custom.warnings().isEmpty();
            if (aliased == null && index == 0 && !annotations.serverAliases.isEmpty()) {
                errors.add(IngressAnnotations.field(IngressAnnotations.SERVER_ALIAS)
                        + ": the Ingress has no host to add names to; it is not applied");
                unsupported = true;
            }
            // What a piece is made of besides the Ingress's generation (ADR 0025 reuses a piece's last result by it).
            String pieceKey = (hostRegex.contains(h.getKey()) ? annotations.key + "~host-regex" : annotations.key) + customKey
                    + (byDefault ? "~default-certificate" : "");
            Paths hp = Paths.of(h.getValue());
            List<String> values = hp.values();
            // A redirect replaces the backend, so a rewrite of what is sent to it does not apply. The rules come
            // in ingress-nginx's order where the paths are its regexes (longest first).
            List<IngressAnnotations.Rewritten> planned = annotations.rewrite(hp.types(), values, hp.fields(),
                    annotations.redirect != null || annotations.redirectError != null, hostRegex.contains(h.getKey()));
            if (annotations.appRoot != null && !planned.isEmpty() && annotations.redirect == null && noTls == null) {
                // ingress-nginx's app-root: "/" itself answers 302 to the app's root, before any path of the host.
                RouteSpec.Rule root = new RouteSpec.Rule();
                RouteSpec.Match m = new RouteSpec.Match();
                m.path = new RouteSpec.PathMatch();
                m.path.type = RouteSpec.PathType.Exact;
                m.path.value = "/";
                root.matches = List.of(m);
                root.redirect = new RouteSpec.Redirect();
                root.redirect.path = new RouteSpec.PathModifier();
                root.redirect.path.replaceFullPath = annotations.appRoot;
                root.redirect.statusCode = 302;
                root.accessLog = annotations.accessLog();
                root.tracing = annotations.tracing();
                fields.put("spec.rules[0]", IngressAnnotations.field(IngressAnnotations.APP_ROOT));
                rs.rules.add(root);
            }
            for (IngressAnnotations.Rewritten rw : planned) {
                HTTPIngressPath path = (HTTPIngressPath) h.getValue().get(rw.source())[0];
                String field = (String) h.getValue().get(rw.source())[1];
                String problem = ConfigParser.pathProblem(dev.strait.model.Route.PathType.valueOf(rw.type().name()),
                        rw.path());
                if (problem != null) {
                    leftOut.add(field + ".path: " + problem + "; the path is left out");
                    continue;
                }
                int i = rs.rules.size();
                RouteSpec.Rule r = new RouteSpec.Rule();
                RouteSpec.Match m = new RouteSpec.Match();
                m.path = new RouteSpec.PathMatch();
                m.path.type = rw.type();
                m.path.value = rw.path();
                boolean regex = rw.type() == RouteSpec.PathType.RegularExpression;
                regexHost |= regex;
                if (regex) {
                    // ingress-nginx sorts the locations of the whole host, every Ingress's, longest path first.
                    m.path.priority = values.get(rw.source()).length();
                }
                // In nginx's reading "/" is "^/": every path, like Prefix "/".
                rootPrefix |= regex ? values.get(rw.source()).equals("/")
                        : rw.type() == RouteSpec.PathType.Prefix && rw.path().equals("/");
                r.matches = List.of(m);
                if (rw.error() != null) {
                    // Served without its rewrite the app would get paths it was never sent: 503 instead.
                    errors.add(rw.error());
                    RouteSpec.Backend b = new RouteSpec.Backend();
                    b.upstream = UNRESOLVED;
                    r.backends = List.of(b);
                    unsupported = true;
                } else {
                    act(r, annotations, customEdits, mirror, compression, noTls != null, () -> orDefaultBackend(backend(path.getBackend(), ns,
                            field + ".backend", endpoints, errors), field + ".backend", annotations.defaultBackend, ns,
                            endpoints, errors));
                    errorPages(r, annotations, ns, endpoints, errors);
                    if (r.basicAuth != null) {
                        fields.put("spec.rules[" + i + "].basicAuth.secretName",
                                IngressAnnotations.field(IngressAnnotations.AUTH_SECRET));
                    }
                    authFields(r, "spec.rules[" + i + "]", fields);
                    mirrorFields(r, "spec.rules[" + i + "]", fields);
                    if (rw.rewrite() != null) {
                        r.pathRewrite = rw.rewrite();
                        fields.put("spec.rules[" + i + "].pathRewrite", IngressAnnotations.field(
                                IngressAnnotations.REWRITE_TARGET));
                    }
                }
                rs.rules.add(r);
                fields.put("spec.rules[" + i + "].matches[0].path", field + ".path");
                fields.put("spec.rules[" + i + "].matches[0]", field);
                fields.put("spec.rules[" + i + "].backends[0]", field + ".backend");
                fields.put("spec.rules[" + i + "]", field);
            }
            // As ingress-nginx: force-ssl-redirect redirects whether or not the host has TLS here, and wins over
            // ssl-redirect "false".
            boolean redirect = annotations.forceSslRedirect || annotations.sslRedirect && rs.tls != null;
            // A host that asks for client certificates is never served on http, ssl-redirect "false" or not: there a
            // request would reach its paths without the check (the translator binds it so too).
            if (redirect || rs.tls != null && rs.tls.clientValidation != null) {
                rs.listeners = List.of(ProxyDefaults.HTTPS);
            }
            if (!rs.rules.isEmpty()) {
                out.add(new Piece(piece(ing, ns, index, "", pieceKey, rs), fields, errors,
                        unsupported ? UNSUPPORTED_ANNOTATION : tlsProblem != null ? defaultCertificate.reason()
                                : custom == null ? null : custom.reason(),
                        annotations.backendTls, external));
            }
            if (redirect) {
                // The host's plain requests, every path: one rule on http, so no longer prefix of the host wins.
                RouteSpec to = new RouteSpec();
                to.hosts = rs.hosts;
                to.listeners = List.of(ProxyDefaults.HTTP);
                RouteSpec.Rule r = new RouteSpec.Rule();
                r.redirect = new RouteSpec.Redirect();
                r.redirect.scheme = RouteSpec.Scheme.HTTPS;
                r.redirect.statusCode = 308; // ingress-nginx's code: the method and body are kept
                r.accessLog = annotations.accessLog();
                r.tracing = annotations.tracing();
                to.rules = List.of(r);
                Map<String, String> toFields = new LinkedHashMap<>();
                if (fields.containsKey("spec.hosts[0]")) {
                    toFields.put("spec.hosts[0]", fields.get("spec.hosts[0]"));
                }
                toFields.put("spec.rules[0]", IngressAnnotations.field(annotations.forceSslRedirect
                        ? IngressAnnotations.FORCE_SSL_REDIRECT : SSL_REDIRECT_ANNOTATION));
                // keyed by the annotations too: its hosts follow server-alias
                out.add(new Piece(piece(ing, ns, index, TO_HTTPS, annotations.key, to), toFields, List.of()));
            }
            String twin = annotations.fromToWww ? wwwTwin(h.getKey()) : null;
            if (twin != null && !hosts.containsKey(twin) && !rs.hosts.contains(twin) && !rs.rules.isEmpty()) {
                // Every request for the twin, on every listener, goes to the host: 308 keeps method and body.
                RouteSpec www = new RouteSpec();
                www.hosts = List.of(twin);
                RouteSpec.Rule r = new RouteSpec.Rule();
                r.redirect = new RouteSpec.Redirect();
                r.redirect.hostname = h.getKey();
                r.redirect.statusCode = 308;
                r.accessLog = annotations.accessLog();
                r.tracing = annotations.tracing();
                www.rules = List.of(r);
                Map<String, String> wwwFields = new LinkedHashMap<>();
                wwwFields.put("spec.hosts[0]", IngressAnnotations.field(IngressAnnotations.FROM_TO_WWW_REDIRECT));
                wwwFields.put("spec.rules[0]", IngressAnnotations.field(IngressAnnotations.FROM_TO_WWW_REDIRECT));
                // Only an entry that names the twin: one listing no hosts is for the Ingress's own hosts.
                int k = tlsEntry(tls, twin, false);
                boolean named = k >= 0;
                List<String> wwwErrors = new ArrayList<>();
                String wwwReason = null;
                if (named && !hasSecret(tls.get(k)) && !defaultCertificate.usable()) {
                    wwwErrors.add(defaultCertificate.unusable("spec.tls[" + k + "].secretName", twin));
                    wwwReason = defaultCertificate.reason();
                } else if (named) {
                    www.tls = new RouteSpec.Tls();
                    www.tls.secretName = hasSecret(tls.get(k)) ? tls.get(k).getSecretName() : DEFAULT_CERTIFICATE;
                    www.hsts = hsts; // the twin's redirect over https teaches browsers https for the twin too
                    wwwFields.put("spec.tls", "spec.tls[" + k + "]");
                }
                String wwwKey = annotations.key + (www.tls != null && DEFAULT_CERTIFICATE.equals(www.tls.secretName)
                        ? "~default-certificate" : "");
                out.add(new Piece(piece(ing, ns, index, FROM_TO_WWW, wwwKey, www), wwwFields, wwwErrors, wwwReason,
                        null));
            }
            if (fallback != null && !rootPrefix) {
                // A Route of its own, which the snapshot lists after every other Route: the proxy merges a host's
                // Routes in that order, so an explicit `Prefix /` of any Ingress or Route of the host answers
                // first, and the defaultBackend only what nothing else matches (ADR 0056).
                RouteSpec ds = new RouteSpec();
                ds.hosts = rs.hosts;
                ds.tls = rs.tls;
                ds.hsts = rs.hsts;
                ds.listeners = rs.listeners;
                RouteSpec.Rule r = new RouteSpec.Rule();
                if (regexHost || hostRegex.contains(h.getKey())) {
                    // Prefix "/" would answer before every regex of the host; the last regex answers after them.
                    RouteSpec.Match m = new RouteSpec.Match();
                    m.path = new RouteSpec.PathMatch();
                    m.path.type = RouteSpec.PathType.RegularExpression;
                    m.path.value = ".*";
                    r.matches = List.of(m);
                }
                List<String> fallbackErrors = new ArrayList<>(annotations.problems());
                if (tlsProblem != null) {
                    fallbackErrors.add(tlsProblem);
                }
                if (noTls != null) {
                    fallbackErrors.add(noTls);
                }
                fallbackErrors.addAll(customErrors);
                boolean hostServed = !rs.rules.isEmpty();
                if (!hostServed) {
                    // The host has no path of its own (an Ingress with only a defaultBackend), so no piece of the host
                    // reports what its annotations said: this one does.
                    for (String e : errors) {
                        if (!fallbackErrors.contains(e)) {
                            fallbackErrors.add(e);
                        }
                    }
                }
                act(r, annotations, customEdits, mirror, compression, noTls != null, () -> orDefaultBackend(backend(fallback, ns, "spec.defaultBackend",
                        endpoints, fallbackErrors), "spec.defaultBackend", annotations.defaultBackend, ns, endpoints,
                        fallbackErrors));
                errorPages(r, annotations, ns, endpoints, fallbackErrors);
                ds.rules = List.of(r);
                Map<String, String> dsFields = new LinkedHashMap<>();
                if (r.basicAuth != null) {
                    dsFields.put("spec.rules[0].basicAuth.secretName", IngressAnnotations.field(IngressAnnotations.AUTH_SECRET));
                }
                authFields(r, "spec.rules[0]", dsFields);
                mirrorFields(r, "spec.rules[0]", dsFields);
                for (String f : new String[] {"spec.hosts[0]", "spec.tls.clientValidation.caSecretName",
                        "spec.tls.clientValidation", "spec.tls"}) {
                    if (fields.containsKey(f)) {
                        dsFields.put(f, fields.get(f));
                    }
                }
                dsFields.put("spec.rules[0].matches[0]", "spec.defaultBackend");
                dsFields.put("spec.rules[0].backends[0]", "spec.defaultBackend");
                dsFields.put("spec.rules[0]", "spec.defaultBackend");
                boolean fallbackUnsupported = !annotations.problems().isEmpty() || noTls != null
                        || custom != null && !custom.warnings().isEmpty() || !hostServed && unsupported;
                out.add(new Piece(piece(ing, ns, index, DEFAULT_BACKEND, pieceKey, ds), dsFields, fallbackErrors,
                        fallbackUnsupported ? UNSUPPORTED_ANNOTATION : tlsProblem != null ? defaultCertificate.reason()
                                : custom == null ? null : custom.reason(),
                        annotations.backendTls, external));
            }
            index++;
        }
        return out;
    }

    /**
     * ingress-nginx's {@code ssl-passthrough}: each host of the rules as a Route whose {@code tlsPassthrough} is the
     * backend of the host's path {@code /} (ingress-nginx's root location), else the Ingress's {@code defaultBackend};
     * its other paths are not served (reported). A rule without a host cannot be passed through (a connection is told
     * apart by the name its ClientHello sends), nor can the defaultBackend's catch-all: reported and left unserved,
     * never served with TLS ended here, which the backend did not ask for. Unlike ingress-nginx, which still serves the
     * paths over plain HTTP, the proxy answers a passed-through host's plain requests with a 308 to https.
     */
    private static List<Piece> passthrough(Ingress ing, String ns, io.fabric8.kubernetes.api.model.networking.v1.IngressSpec spec,
                                           IngressAnnotations annotations, ServiceEndpoints endpoints, List<String> leftOut) {
        String annotation = IngressAnnotations.field(IngressAnnotations.SSL_PASSTHROUGH);
        Map<String, Integer> hostRule = new LinkedHashMap<>();
        Map<String, List<Object[]>> hosts = hostPaths(spec, hostRule);
        IngressBackend fallback = spec.getDefaultBackend();
        // What concerns the whole Ingress, on each of its Routes (the report lists it once).
        List<String> common = new ArrayList<>(annotations.warnings);
        boolean fallbackUsed = false;
        List<Piece> out = new ArrayList<>();
        int index = 0;
        for (Map.Entry<String, List<Object[]>> h : hosts.entrySet()) {
            String rule = "spec.rules[" + hostRule.get(h.getKey()) + "]";
            if (h.getKey().equals("*")) {
                common.add(rule + ".host: a rule without a host cannot be passed through (" + annotation + "): a"
                        + " connection is told apart by the name its ClientHello sends (SNI); its paths are not served");
                continue;
            }
            List<String> errors = new ArrayList<>();
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("spec.hosts[0]", rule + ".host");
            RouteSpec.Backend backend = null;
            boolean pathsLeftOut = false;
            for (Object[] p : h.getValue()) {
                HTTPIngressPath path = (HTTPIngressPath) p[0];
                boolean root = path.getPath() == null || path.getPath().isEmpty() || path.getPath().equals("/");
                if (root && backend == null) {
                    backend = backend(path.getBackend(), ns, p[1] + ".backend", endpoints, errors);
                    fields.put("spec.tlsPassthrough", p[1] + ".backend");
                } else {
                    pathsLeftOut = true;
                    errors.add(p[1] + ".path: not served: " + annotation + " passes the host's connections whole to"
                            + " the backend of its path /");
                }
            }
            if (backend == null && fallback != null) {
                backend = backend(fallback, ns, "spec.defaultBackend", endpoints, errors);
                fields.put("spec.tlsPassthrough", "spec.defaultBackend");
                fallbackUsed = true;
            }
            if (backend == null) {
                common.add(rule + ".host: \"" + h.getKey() + "\" has no path / and the Ingress no defaultBackend: "
                        + annotation + " has no backend to pass its connections to; it is not served");
                continue;
            }
            RouteSpec rs = new RouteSpec();
            rs.hosts = List.of(h.getKey());
            rs.tlsPassthrough = new RouteSpec.TlsPassthrough();
            rs.tlsPassthrough.service = backend.service;
            rs.tlsPassthrough.upstream = backend.upstream;
            // a path left out is the annotation's doing; a backend that does not resolve is reported as any
            out.add(new Piece(piece(ing, ns, index++, "", annotations.key, rs), fields, errors,
                    pathsLeftOut ? UNSUPPORTED_ANNOTATION : null, null));
        }
        if (fallback != null && !fallbackUsed) {
            common.add("spec.defaultBackend: not served: " + annotation + " passes a host of the rules to it when the"
                    + " host has no path /, and none here does; hosts the Ingress does not name cannot be passed through"
                    + " (no name to match the ClientHello's against)");
        }
        if (out.isEmpty()) {
            leftOut.addAll(common);
            return out;
        }
        List<Piece> withCommon = new ArrayList<>(out.size());
        for (Piece p : out) {
            List<String> errors = new ArrayList<>(common);
            errors.addAll(p.refErrors());
            withCommon.add(new Piece(p.route(), p.paths(), errors, common.isEmpty() ? p.refReason() : UNSUPPORTED_ANNOTATION,
                    null));
        }
        return withCommon;
    }

    /**
     * The index of the {@code spec.tls} entry that gives {@code host} its TLS, or -1 for none: the first entry with a
     * {@code secretName} that lists the host (or lists no hosts), else the first that lists it without one (served
     * with the operator's default certificate, as ingress-nginx does). A Secret of the host's own always wins over
     * the default, wherever it is listed. {@code unlisted}: whether an entry with a Secret and no hosts covers it.
     */
    static int tlsEntry(List<IngressTLS> tls, String host, boolean unlisted) {
        int withoutSecret = -1;
        for (int k = 0; k < tls.size(); k++) {
            IngressTLS t = tls.get(k);
            boolean listed = t.getHosts() != null && t.getHosts().contains(host);
            if (hasSecret(t) && (listed || unlisted && (t.getHosts() == null || t.getHosts().isEmpty()))) {
                return k;
            }
            if (listed && withoutSecret < 0) {
                withoutSecret = k;
            }
        }
        return withoutSecret;
    }

    /** Whether a {@code spec.tls} entry names a Secret ({@code secretName: ""} is none, as in ingress-nginx). */
    static boolean hasSecret(IngressTLS t) {
        return t.getSecretName() != null && !t.getSecretName().isEmpty();
    }

    /** {@code www.HOST} for a host, {@code HOST} for {@code www.HOST}; null for a wildcard, {@code *} or one label. */
    static String wwwTwin(String host) {
        if (host.startsWith("*") || !host.contains(".")) {
            return null;
        }
        String bare = host.startsWith("www.") ? host.substring(4) : null;
        return bare == null ? "www." + host : bare.contains(".") ? bare : null;
    }

    /**
     * The Route of one host of an Ingress ({@code suffix} tells apart the Routes made for one host). Its uid
     * and generation key the translator's memo of Route states: the uid names the listeners and the values of
     * the annotations read into its rules ({@code annotationKey}), which change without a new generation.
     */
    private static Route piece(Ingress ing, String ns, int index, String name, String annotationKey, RouteSpec spec) {
        String suffix = name + annotationKey;
        if (spec.listeners != null) {
            suffix = suffix + "@" + String.join(",", spec.listeners);
        }
        Route route = new Route();
        route.setMetadata(new ObjectMetaBuilder()
                .withNamespace(ns)
                .withName(routeMetadataName(ing.getMetadata().getName(), index) + name)
                .withUid(ing.getMetadata().getUid() == null ? null : ing.getMetadata().getUid() + "#" + index + suffix)
                .withGeneration(ing.getMetadata().getGeneration())
                .withCreationTimestamp(ing.getMetadata().getCreationTimestamp())
                .build());
        route.setSpec(spec);
        return route;
    }

    /**
     * The rule's action: the Ingress's redirect annotation when it has one (its backends are then never
     * looked up: a redirect-only Ingress often names a Service that does not exist), else the backend;
     * a redirect that cannot be expressed answers 503 rather than serve what was meant to move, and so does a
     * backend whose guard (an access list, authentication) cannot be honoured. A backend rule takes the
     * source-range annotations as its {@code clientAddresses}, {@code mirror} (or none) as its mirrors, and the
     * {@code proxy-redirect-*} and {@code proxy-cookie-*} annotations as its {@code responseRewrite}, and reads request
     * bodies first as ingress-nginx does ({@code requestBuffering}; a stand-in answering 503 reads none). {@code locked}:
     * the host cannot ask for the client certificates the Ingress wants, and every rule of it answers 503, its
     * redirects too. {@code custom}: the fields of the ConfigMap {@code custom-headers} names, set on a backend rule's
     * answers beside the snippet's edits ({@link CustomHeaders#merge}), or null. {@code compression}: the controller's
     * for Ingresses ({@link #compression}), or null; not for backends spoken to as gRPC, which compresses its messages
     * itself ({@code grpc-encoding}) and whose clients read no gzip'd body.
     */
    private static void act(RouteSpec.Rule r, IngressAnnotations annotations, RouteSpec.HeaderEdits custom,
                            RouteSpec.Mirror mirror, RouteSpec.Compression compression, boolean locked,
                            java.util.function.Supplier<RouteSpec.Backend> backend) {
        r.accessLog = annotations.accessLog();
        r.tracing = annotations.tracing();
        if (locked) {
            RouteSpec.Backend b = new RouteSpec.Backend();
            b.upstream = UNRESOLVED;
            r.backends = List.of(b);
        } else if (annotations.redirect != null) {
            r.redirect = annotations.redirect;
        } else if (!annotations.problems().isEmpty()) {
            RouteSpec.Backend b = new RouteSpec.Backend();
            b.upstream = UNRESOLVED;
            r.backends = List.of(b);
        } else {
            RouteSpec.Backend b = backend.get();
            if (b.service != null) {
                b.protocol = annotations.backendProtocol;
                b.sessionAffinity = sessionAffinity(annotations.affinity, r);
                b.loadBalancer = annotations.loadBalancer;
                b.hashOn = annotations.hashOn;
                b.connectTimeout = annotations.connectTimeout;
                b.useClusterIP = annotations.serviceUpstream ? Boolean.TRUE : null;
            }
            r.backends = List.of(b);
            r.hostRewrite = annotations.hostRewrite;
            r.responseRewrite = annotations.responseRewrite;
            r.requestBuffering = annotations.requestBuffering;
            r.responseRate = annotations.responseRate;
            boolean grpc = annotations.backendProtocol == RouteSpec.ServiceProtocol.H2C
                    || annotations.backendProtocol == RouteSpec.ServiceProtocol.H2;
            r.compression = grpc ? null : annotations.snippet == null || annotations.snippet.compression() == null
                    ? compression : annotations.snippet.compression().applied(compression);
            if (annotations.idleTimeout != null) {
                r.timeouts = new RouteSpec.Timeouts();
                r.timeouts.idle = annotations.idleTimeout;
            }
            r.clientAddresses = annotations.clientAddresses;
            r.basicAuth = annotations.basicAuth;
            r.forwardAuth = annotations.forwardAuth;
            r.mirrors = mirror == null ? null : List.of(mirror);
            r.satisfy = annotations.satisfy;
            r.rateLimit = annotations.rateLimit;
            r.inFlightLimit = annotations.inFlightLimit;
            r.cors = annotations.cors;
            r.maxBodyBytes = annotations.maxBodyBytes;
            r.retries = annotations.retries;
            if (annotations.snippet != null) {
                r.requestHeaders = annotations.snippet.request();
                r.responseHeaders = annotations.snippet.response();
            }
            r.responseHeaders = CustomHeaders.merge(custom, r.responseHeaders);
            if (annotations.forwardedPrefix != null) {
                RouteSpec.HeaderEdits edits = new RouteSpec.HeaderEdits();
                Map<String, String> set = new java.util.LinkedHashMap<>();
                if (r.requestHeaders != null) {
                    edits.add = r.requestHeaders.add;
                    edits.remove = r.requestHeaders.remove;
                    if (r.requestHeaders.set != null) {
                        set.putAll(r.requestHeaders.set);
                    }
                }
                set.keySet().removeIf(k -> k.equalsIgnoreCase("X-Forwarded-Prefix")); // the annotation's wins
                set.put("X-Forwarded-Prefix", annotations.forwardedPrefix);
                edits.set = set;
                r.requestHeaders = edits;
            }
        }
    }

    /**
     * The operator's {@code --ingress-compression*} (ingress-nginx's ConfigMap keys {@code use-gzip}, {@code gzip-level},
     * {@code gzip-min-length}, {@code gzip-types} and {@code enable-brotli}, which apply to every location of the
     * controller) as a rule's {@code compression}, or null when it is off.
     */
    private static RouteSpec.Compression compression(dev.strait.model.Route.Compression c) {
        if (c == null) {
            return null;
        }
        RouteSpec.Compression out = new RouteSpec.Compression();
        out.types = c.types();
        out.minBytes = c.minBytes();
        out.level = c.level();
        out.codings = RouteSpec.Coding.of(c.codings());
        return out;
    }

    /**
     * The operator's {@code --ingress-hsts} (ingress-nginx's ConfigMap keys {@code hsts}, {@code hsts-max-age},
     * {@code hsts-include-subdomains} and {@code hsts-preload}, which apply to every server with a certificate) as a
     * Route's {@code hsts}, or null when it is off.
     */
    private static RouteSpec.Hsts hsts(dev.strait.model.Route.Hsts h) {
        if (h == null) {
            return null;
        }
        RouteSpec.Hsts out = new RouteSpec.Hsts();
        out.maxAgeSeconds = h.maxAgeSeconds();
        out.includeSubDomains = h.includeSubDomains();
        out.preload = h.preload();
        return out;
    }

    /**
     * Where the errors of a rule's {@code forwardAuth} come from: the Service and port of its backend are the
     * {@code auth-url}'s ("Service \"auth\" not found" is said of the annotation), as is the rest.
     */
    private static void authFields(RouteSpec.Rule r, String rule, Map<String, String> fields) {
        if (r.forwardAuth != null) {
            backendFrom(IngressAnnotations.AUTH_URL, rule + ".forwardAuth", fields);
        }
    }

    /**
     * Where the errors of a rule's mirror come from: its Service and port are the {@code mirror-target}'s ("Service
     * \"shadow\" not found" is said of the annotation).
     */
    private static void mirrorFields(RouteSpec.Rule r, String rule, Map<String, String> fields) {
        if (r.mirrors != null) {
            backendFrom(IngressAnnotations.MIRROR_TARGET, rule + ".mirrors[0]", fields);
        }
    }

    /** {@code at} and its backend's Service fields came from {@code annotation}. */
    private static void backendFrom(String annotation, String at, Map<String, String> fields) {
        String field = IngressAnnotations.field(annotation);
        for (String f : new String[] {".backend.service.name", ".backend.service.port", ".backend.service.namespace", ""}) {
            fields.put(at + f, field);
        }
    }

    /**
     * Why the Ingress's {@code mirror-target} is not applied although it could be read: its host is one the Ingress
     * itself serves ({@code served}: its hosts and aliases), so each copy would come back through the proxies and be
     * copied again, without end (as it would in nginx). A wildcard host is not taken for the target's: the name may
     * well lead elsewhere. Null when it is applied, or there is none.
     */
    private static String mirrorLoop(IngressAnnotations annotations, List<String> served) {
        if (annotations.mirror == null || annotations.mirrorUpstream == null) {
            return null;
        }
        String target = annotations.mirrorUpstream.endpoints().get(0).host();
        return !served.contains(target) ? null : IngressAnnotations.field(IngressAnnotations.MIRROR_TARGET) + ": host \""
                + target + "\" is served by this Ingress: each copy would come back and be copied again; it is not applied";
    }

    /**
     * The Ingress's affinity for the backend of rule {@code r}: without {@code session-cookie-path}, the cookie's
     * Path is the rule's own path where it is a literal one (ingress-nginx's location path), else {@code /}.
     */
    private static RouteSpec.SessionAffinity sessionAffinity(RouteSpec.SessionAffinity a, RouteSpec.Rule r) {
        if (a == null || a.path != null) {
            return a;
        }
        RouteSpec.SessionAffinity out = new RouteSpec.SessionAffinity();
        out.cookieName = a.cookieName;
        out.maxAge = a.maxAge;
        out.sameSite = a.sameSite;
        out.changeOnFailure = a.changeOnFailure;
        out.domain = a.domain;
        out.secure = a.secure;
        out.mode = a.mode;
        out.path = "/";
        RouteSpec.PathMatch p = r.matches == null || r.matches.isEmpty() ? null : r.matches.get(0).path;
        if (p != null && p.type != RouteSpec.PathType.RegularExpression && p.value != null
                && IngressAnnotations.COOKIE_PATH.matcher(p.value).matches()) {
            out.path = p.value;
        }
        return out;
    }

    private static RouteSpec.Backend backend(IngressBackend b, String ns, String field, ServiceEndpoints endpoints,
                                             List<String> errors) {
        RouteSpec.Backend out = new RouteSpec.Backend();
        if (b == null || b.getService() == null) {
            errors.add(field + ": only service backends are supported");
            out.upstream = UNRESOLVED;
            return out;
        }
        String name = b.getService().getName();
        var port = b.getService().getPort();
        Integer number = port == null ? null : port.getNumber();
        if (number == null && port != null && port.getName() != null) {
            if (!endpoints.hasService(ns, name)) {
                errors.add(field + ".service.name: Service \"" + name + "\" not found");
                out.upstream = UNRESOLVED;
                return out;
            }
            number = endpoints.portNumber(ns, name, port.getName());
            if (number == null) {
                errors.add(field + ".service.port.name: Service \"" + name + "\" has no TCP port named \""
                        + port.getName() + "\"");
                out.upstream = UNRESOLVED;
                return out;
            }
        }
        if (number == null) {
            errors.add(field + ".service.port: a port number or name is required");
            out.upstream = UNRESOLVED;
            return out;
        }
        out.service = new ServiceRef(Objects.requireNonNull(name), number);
        return out;
    }

    /**
     * ingress-nginx's {@code custom-http-errors}: a rule with backends gets {@code errorPages} for those statuses
     * from the {@code default-backend} Service's first TCP port, path {@code /} (the pages read {@code X-Code}).
     */
    private static void errorPages(RouteSpec.Rule r, IngressAnnotations annotations, String ns, ServiceEndpoints endpoints,
                                   List<String> errors) {
        if (annotations.customErrors.isEmpty() || r.backends == null) {
            return;
        }
        Integer port = endpoints.firstPort(ns, annotations.defaultBackend);
        if (port == null) {
            String e = IngressAnnotations.field(IngressAnnotations.CUSTOM_HTTP_ERRORS) + ": its pages' Service \""
                    + annotations.defaultBackend + "\" (" + IngressAnnotations.field(IngressAnnotations.DEFAULT_BACKEND)
                    + ") is not found or has no TCP port; the answers go out as they are";
            if (!errors.contains(e)) {
                errors.add(e);
            }
            return;
        }
        r.errorPages = new RouteSpec.ErrorPages();
        r.errorPages.statuses = annotations.customErrors;
        r.errorPages.backend = new RouteSpec.Backend();
        r.errorPages.backend.service = new ServiceRef(annotations.defaultBackend, port);
        r.errorPages.path = "/";
    }

    /**
     * ingress-nginx's {@code default-backend} annotation: a backend whose Service is missing or has no ready
     * endpoint is served by that Service (its first TCP port) instead. Taken again at every translation, so
     * the path returns to its own Service as soon as that has an endpoint.
     */
    private static RouteSpec.Backend orDefaultBackend(RouteSpec.Backend b, String field, String defaultBackend,
                                                      String ns, ServiceEndpoints endpoints, List<String> errors) {
        if (defaultBackend == null) {
            return b;
        }
        ServiceEndpoints.Resolution own = b.service == null ? null : endpoints.resolve(ns, b.service.name, b.service.port);
        if (own == null ? !UNRESOLVED.equals(b.upstream) : !own.endpoints().isEmpty()) {
            return b;
        }
        if (own != null && !own.ok()) {
            // what the Translator would have said of the backend, had it been kept
            errors.add(field + ".service." + own.field() + ": " + own.error() + "; " + IngressAnnotations.field(
                    IngressAnnotations.DEFAULT_BACKEND) + " serves the path");
        }
        Integer port = endpoints.firstPort(ns, defaultBackend);
        if (port == null) {
            errors.add(IngressAnnotations.field(IngressAnnotations.DEFAULT_BACKEND) + ": Service \"" + defaultBackend
                    + "\" " + (endpoints.hasService(ns, defaultBackend) ? "has no TCP port" : "not found"));
            return b;
        }
        RouteSpec.Backend out = new RouteSpec.Backend();
        out.service = new ServiceRef(defaultBackend, port);
        return out;
    }
}
