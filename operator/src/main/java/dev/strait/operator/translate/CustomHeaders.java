package dev.strait.operator.translate;

import dev.strait.model.ConfigParser;
import dev.strait.operator.crd.RouteSpec;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressClass;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * ingress-nginx's {@code custom-headers} (ADR 0093): the annotation names a ConfigMap ({@code NAME}, or
 * {@code NAMESPACE/NAME}), and each key of its {@code data} is a field set on every answer of the Ingress's backend
 * paths to the key's value, as ingress-nginx's {@code more_set_headers "KEY: VALUE"} in each location: the rules'
 * {@code responseHeaders.set}, beside what {@code configuration-snippet} edits ({@link #merge}: the snippet's line
 * wins for a field both name).
 *
 * <p>Headers guard nothing, so nothing here answers 503: a key Strait cannot send (not a field name, a field the
 * proxy frames itself, a value with control characters or an nginx variable) is reported naming it and left out;
 * a ConfigMap that is missing, or of another namespace that does not accept the Ingress's (ADR 0078), is reported
 * and the paths serve without its fields until it is there. ingress-nginx denies the whole location (503) in each of
 * these cases, and only sends fields the controller lists in {@code global-allowed-response-headers}; Strait has no
 * such list, since whoever may write an Ingress may set any of these fields with {@code configuration-snippet} or a
 * Route's {@code responseHeaders} anyway (ADR 0084).
 */
public final class CustomHeaders {
    /** The reason of an Ingress's ResolvedRefs while the ConfigMap it names does not exist. */
    static final String NOT_FOUND = "ConfigMapNotFound";
    /** Gateway API's reason, as for a Secret or Service of another namespace (ADR 0078). */
    static final String NOT_PERMITTED = "RefNotPermitted";
    /** RFC 9110's token, the only field names there are. */
    private static final Pattern FIELD_NAME = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
    /** An nginx variable ({@code $host}, {@code ${host}}): ingress-nginx's nginx may expand it, Strait has none. */
    private static final Pattern VARIABLE = Pattern.compile("\\$(\\{|[A-Za-z0-9_])");
    /** A ConfigMap's name (a DNS subdomain), and a namespace's (a DNS label). */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    /** The longest value taken, as for the snippet's. */
    private static final int MAX_VALUE = 8192;

    private CustomHeaders() {}

    /** The ConfigMap an Ingress names: {@code namespace} is the Ingress's own unless written otherwise. */
    record Ref(String namespace, String name, boolean otherNamespace) {
        /** The cache's key of the ConfigMap: {@code namespace/name}. */
        String key() {
            return namespace + "/" + name;
        }
    }

    /**
     * The ConfigMap {@code value} (the annotation's) names for an Ingress of {@code namespace}, or null: none, a value
     * that names no ConfigMap, or a canary's (its share is answered with the headers of the Ingress it splits, as in
     * ingress-nginx, which reads no other annotation of a canary); the last two with a warning in {@code warn}.
     */
    static Ref ref(String value, String namespace, boolean canary, List<String> warn) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String field = IngressAnnotations.field(IngressAnnotations.CUSTOM_HEADERS);
        if (canary) {
            warn.add(field + ": not read on a canary: its share is answered with the fields of the Ingress it splits");
            return null;
        }
        String own = namespace == null ? "" : namespace;
        String v = value.trim();
        int slash = v.indexOf('/');
        String ns = slash < 0 ? own : v.substring(0, slash);
        String name = v.substring(slash + 1);
        if (!NAME.matcher(name).matches() || slash >= 0 && !NAMESPACE.matcher(ns).matches()) {
            warn.add(field + ": \"" + value + "\" is not a ConfigMap (NAME or NAMESPACE/NAME); it is not applied");
            return null;
        }
        return new Ref(ns, name, !ns.equals(own));
    }

    /**
     * What the ConfigMap came to: the fields to set (lower case, as the snippet's), the keys left out ({@code warnings},
     * reported as {@code UnsupportedAnnotation}), or why the ConfigMap could not be had ({@code reason},
     * {@code error}); {@code fingerprint} tells apart what ends in the rules, for the translator's memo.
     */
    record Resolved(Map<String, String> set, List<String> warnings, String reason, String error) {
        /** What the rules get: the fields, in name order. */
        String fingerprint() {
            return new TreeMap<>(set).toString();
        }

        /** The fields as a rule's {@code responseHeaders}, or null for none. */
        RouteSpec.HeaderEdits edits() {
            if (set.isEmpty()) {
                return null;
            }
            RouteSpec.HeaderEdits e = new RouteSpec.HeaderEdits();
            e.set = set;
            return e;
        }
    }

    /** The ConfigMap {@code ref} names, read from {@code configMaps} ({@code namespace/name} to ConfigMap). */
    static Resolved resolve(Ref ref, String ingressNamespace, Map<String, ConfigMap> configMaps) {
        String field = IngressAnnotations.field(IngressAnnotations.CUSTOM_HEADERS);
        ConfigMap cm = configMaps.get(ref.key());
        String named = ref.otherNamespace() ? ref.namespace() + "/" + ref.name() : ref.name();
        if (cm == null) {
            return new Resolved(Map.of(), List.of(), NOT_FOUND, field + ": ConfigMap \"" + named + "\" not found; the"
                    + " paths serve without its fields until it exists");
        }
        if (ref.otherNamespace() && !Consent.accepts(cm, ingressNamespace)) {
            return new Resolved(Map.of(), List.of(), NOT_PERMITTED, field + ": " + Consent.refused("ConfigMap", ref.name(),
                    ref.namespace(), ingressNamespace) + "; the paths serve without its fields until it does");
        }
        String of = field + ": ConfigMap \"" + named + "\"";
        List<String> warn = new ArrayList<>();
        // Keys in order, so the fields, the warnings and the memo key never depend on the API's order.
        Map<String, String> data = cm.getData() == null ? Map.of() : new TreeMap<>(cm.getData());
        Map<String, String> set = new LinkedHashMap<>();
        Map<String, List<String>> keysOf = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : data.entrySet()) {
            String key = e.getKey();
            String value = e.getValue() == null ? "" : e.getValue().strip();
            String why = problem(key, value);
            if (why != null) {
                warn.add(of + " key \"" + key + "\" " + why + "; it is left out");
                continue;
            }
            String n = key.toLowerCase(Locale.ROOT);
            keysOf.computeIfAbsent(n, k -> new ArrayList<>()).add(key);
            set.put(n, value);
        }
        for (List<String> keys : keysOf.values()) {
            if (keys.size() > 1) {
                // ingress-nginx would send one of them, whichever its map gives last: neither is what was meant.
                warn.add(of + " keys \"" + String.join("\", \"", keys) + "\" name the same field; they are left out");
                set.remove(keys.get(0).toLowerCase(Locale.ROOT));
            }
        }
        if (cm.getBinaryData() != null && !cm.getBinaryData().isEmpty()) {
            warn.add(of + " binaryData (" + String.join(", ", new TreeSet<>(cm.getBinaryData().keySet()))
                    + ") is not read; only data holds fields");
        }
        return new Resolved(Map.copyOf(set), List.copyOf(warn), null, null);
    }

    /** Why a key and its value cannot be a field of the answers, or null. */
    private static String problem(String key, String value) {
        if (!FIELD_NAME.matcher(key).matches()) {
            return "is not a header field name";
        }
        if (ConfigParser.RESERVED_RESPONSE_HEADERS.contains(key.toLowerCase(Locale.ROOT))) {
            return "is a field the proxy sets itself";
        }
        if (value.isEmpty()) {
            return "has no value";
        }
        if (value.length() > MAX_VALUE || value.chars().anyMatch(ch -> ch < 0x20 && ch != '\t' || ch == 0x7f)) {
            return "has a value with control characters, or longer than " + MAX_VALUE;
        }
        if (VARIABLE.matcher(value).find()) {
            return "holds an nginx variable, which Strait does not have (it would send the text)";
        }
        return null;
    }

    /**
     * The answers' edits of a rule with both: the ConfigMap's fields ({@code custom}) and {@code snippet}'s edits
     * ({@code configuration-snippet}). Where both name a field the snippet's line applies and the ConfigMap's does not:
     * it is written on the Ingress itself, where the ConfigMap may be shared by many. Either may be null.
     */
    static RouteSpec.HeaderEdits merge(RouteSpec.HeaderEdits custom, RouteSpec.HeaderEdits snippet) {
        if (custom == null || custom.set == null) {
            return snippet;
        }
        if (snippet == null) {
            return custom;
        }
        Map<String, String> set = new LinkedHashMap<>(custom.set);
        // The snippet's names are lower case already (ConfigurationSnippet).
        if (snippet.add != null) {
            set.keySet().removeAll(snippet.add.keySet());
        }
        if (snippet.remove != null) {
            snippet.remove.forEach(set::remove);
        }
        if (snippet.set != null) {
            set.putAll(snippet.set);
        }
        RouteSpec.HeaderEdits out = new RouteSpec.HeaderEdits();
        out.set = set.isEmpty() ? null : Map.copyOf(set);
        out.add = snippet.add;
        out.remove = snippet.remove;
        return out;
    }

    /**
     * The ConfigMaps ({@code namespace/name}) that the Ingresses of this operator's classes name, which the operator
     * must watch: those of every class it serves ({@code defaultClass} among them), canaries and ssl-passthrough
     * Ingresses aside (the annotation is not read on them).
     */
    public static Set<String> named(List<Ingress> ingresses, List<IngressClass> classes, String defaultClass) {
        Set<String> out = new TreeSet<>();
        for (Ingress ing : ingresses) {
            Map<String, String> a = ing.getMetadata().getAnnotations();
            String value = a == null ? null : a.get(IngressAnnotations.CUSTOM_HEADERS);
            if (value == null || value.isBlank() || "true".equals(a.get(IngressAnnotations.SSL_PASSTHROUGH))
                    || IngressRoutes.isCanary(ing) || IngressRoutes.classOf(ing, classes, defaultClass) == null) {
                continue;
            }
            Ref ref = ref(value, ing.getMetadata().getNamespace(), false, new ArrayList<>());
            if (ref != null) {
                out.add(ref.key());
            }
        }
        return out;
    }
}
