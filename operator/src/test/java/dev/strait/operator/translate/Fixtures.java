package dev.strait.operator.translate;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.Upstream;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressClass;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** Resources for translation tests, written as the YAML a user would apply. */
public final class Fixtures {
    public static final Translator TRANSLATOR = new Translator(ProxyDefaults.STANDARD);
    public static final Scope STRAIT = Scope.ingress("strait");
    /** A real certificate and key (the translation checks they load and belong together). */
    private static final dev.strait.operator.publish.tls.ChannelPki.Issued ISSUED = issue();
    public static final String CERT = ISSUED.certificatePem();
    public static final String KEY = ISSUED.keyPem();
    /** The key of another certificate: loads, but does not match {@link #CERT}. */
    public static final String OTHER_KEY = issue().keyPem();

    private static dev.strait.operator.publish.tls.ChannelPki.Issued issue() {
        java.time.Instant now = java.time.Instant.now();
        var ca = dev.strait.operator.publish.tls.ChannelPki.newCa("fixtures", now, java.time.Duration.ofDays(1));
        return dev.strait.operator.publish.tls.ChannelPki.serverCertificate(ca, List.of("example.com"), now,
                java.time.Duration.ofDays(1));
    }

    private Fixtures() {}

    /**
     * A Route created at {@code minute} minutes past a fixed hour (age decides conflicts). Its generation
     * is derived from the spec, as the API server bumps it on every spec change.
     */
    public static Route route(String ns, String name, int minute, String spec) {
        return Serialization.unmarshal("""
                apiVersion: strait.dev/v1alpha1
                kind: Route
                metadata: { namespace: %s, name: %s, generation: %d, creationTimestamp: "2026-11-30T10:%02d:00Z" }
                spec:
                %s""".formatted(ns, name, generation(spec), minute, spec.indent(2)), Route.class);
    }

    /** A standard Ingress created at {@code minute} minutes past a fixed hour. */
    public static Ingress ingress(String ns, String name, int minute, String spec) {
        return Serialization.unmarshal("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: { namespace: %s, name: %s, uid: %s, generation: %d, creationTimestamp: "2026-11-30T10:%02d:00Z" }
                spec:
                %s""".formatted(ns, name, "uid-" + ns + "-" + name, generation(spec), minute, spec.indent(2)),
                Ingress.class);
    }

    /**
     * The same, with ingress-nginx's annotations ({@code name, value, ...}, names without the
     * {@code nginx.ingress.kubernetes.io/} prefix), in the order given.
     */
    public static Ingress annotatedIngress(String ns, String name, int minute, String spec, String... annotations) {
        Ingress ing = ingress(ns, name, minute, spec);
        Map<String, String> a = new java.util.LinkedHashMap<>();
        for (int i = 0; i < annotations.length; i += 2) {
            a.put("nginx.ingress.kubernetes.io/" + annotations[i], annotations[i + 1]);
        }
        ing.getMetadata().setAnnotations(a);
        return ing;
    }

    /** An IngressClass, of this operator's controller unless {@code controller} says otherwise. */
    public static IngressClass ingressClass(String name, String controller, boolean isDefault) {
        return Serialization.unmarshal("""
                apiVersion: networking.k8s.io/v1
                kind: IngressClass
                metadata:
                  name: %s
                  annotations: { ingressclass.kubernetes.io/is-default-class: "%s" }
                spec: { controller: %s }""".formatted(name, isDefault, controller), IngressClass.class);
    }

    public static ResourceReport ingressReport(Translation t, String ns, String name) {
        return t.report(new ResourceKey("Ingress", ns, name));
    }

    public static long generation(String spec) {
        return 1 + (spec.hashCode() & 0xffff);
    }

    public static Upstream upstream(String ns, String name, String spec) {
        return Serialization.unmarshal("""
                apiVersion: strait.dev/v1alpha1
                kind: Upstream
                metadata: { namespace: %s, name: %s, generation: 1, creationTimestamp: "2026-11-30T10:00:00Z" }
                spec:
                %s""".formatted(ns, name, spec.indent(2)), Upstream.class);
    }

    /** A Service with one TCP port per {@code "name:port"} (name may be empty). */
    public static Service service(String ns, String name, String... ports) {
        ServiceBuilder b = new ServiceBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withNewSpec().endSpec();
        for (String p : ports) {
            String[] np = p.split(":");
            b.editSpec().addNewPort().withName(np[0].isEmpty() ? null : np[0]).withPort(Integer.parseInt(np[1]))
                    .withProtocol("TCP").endPort().endSpec();
        }
        return b.build();
    }

    /**
     * A Service of type ExternalName for {@code externalName} (null: none), with one TCP port per {@code "name:port"}
     * as {@link #service} (an ExternalName Service need list none).
     */
    public static Service externalName(String ns, String name, String externalName, String... ports) {
        Service s = service(ns, name, ports);
        s.getSpec().setType("ExternalName");
        s.getSpec().setExternalName(externalName);
        return s;
    }

    /**
     * One slice of a Service: port {@code portName -> port}, endpoints as {@code "10.0.0.1"}, {@code "10.0.0.2!"}
     * (not ready) or {@code "10.0.0.3~"} (terminating, not ready, still serving); an address with a colon
     * makes an IPv6 slice.
     */
    public static EndpointSlice slice(String ns, String service, String sliceName, String portName, int port, String... addresses) {
        EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata().withNamespace(ns).withName(sliceName)
                .withLabels(Map.of(ServiceEndpoints.SERVICE_NAME_LABEL, service)).endMetadata()
                .withAddressType(addresses.length > 0 && addresses[0].contains(":") ? "IPv6" : "IPv4")
                .addNewPort().withName(portName).withPort(port).withProtocol("TCP").endPort();
        for (String a : addresses) {
            boolean draining = a.endsWith("~");
            boolean ready = !a.endsWith("!") && !draining;
            String address = ready ? a : a.substring(0, a.length() - 1);
            var conditions = new io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditionsBuilder().withReady(ready);
            if (draining) {
                conditions.withServing(true).withTerminating(true);
            }
            b.addNewEndpoint().withAddresses(address).withConditions(conditions.build()).endEndpoint();
        }
        return b.build();
    }

    public static Secret tlsSecret(String ns, String name, String cert, String key) {
        return new SecretBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withType("kubernetes.io/tls")
                .withData(Map.of("tls.crt", b64(cert), "tls.key", b64(key))).build();
    }

    /** A CA bundle as users keep one: an Opaque Secret with {@code ca.crt}. */
    public static Secret caSecret(String ns, String name, String caPem) {
        return new SecretBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withType("Opaque").withData(Map.of("ca.crt", b64(caPem))).build();
    }

    /** ingress-nginx's basic auth Secret: htpasswd lines in {@code auth}. */
    public static Secret authSecret(String ns, String name, String htpasswd) {
        return new SecretBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withType("Opaque").withData(Map.of("auth", b64(htpasswd))).build();
    }

    public static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Builds inputs from a mix of resources. */
    public static Inputs inputs(Object... resources) {
        List<Route> routes = new ArrayList<>();
        List<Upstream> upstreams = new ArrayList<>();
        List<Service> services = new ArrayList<>();
        List<EndpointSlice> slices = new ArrayList<>();
        List<Secret> secrets = new ArrayList<>();
        List<Ingress> ingresses = new ArrayList<>();
        List<IngressClass> classes = new ArrayList<>();
        List<ConfigMap> configMaps = new ArrayList<>();
        for (Object o : resources) {
            if (o instanceof Route r) {
                routes.add(r);
            } else if (o instanceof Upstream u) {
                upstreams.add(u);
            } else if (o instanceof Service s) {
                services.add(s);
            } else if (o instanceof EndpointSlice e) {
                slices.add(e);
            } else if (o instanceof Secret s) {
                secrets.add(s);
            } else if (o instanceof Ingress i) {
                ingresses.add(i);
            } else if (o instanceof IngressClass c) {
                classes.add(c);
            } else if (o instanceof ConfigMap c) {
                configMaps.add(c);
            } else {
                throw new IllegalArgumentException(String.valueOf(o));
            }
        }
        return new Inputs(routes, upstreams, services, slices, secrets, ingresses, classes, configMaps);
    }

    public static Translation translate(Object... resources) {
        return TRANSLATOR.translate(inputs(resources));
    }

    public static ResourceReport routeReport(Translation t, String ns, String name) {
        return t.report(new ResourceKey("Route", ns, name));
    }

    /**
     * Translates the Route {@code shop/site} among {@code resources} and checks it was refused with one error
     * starting with {@code error}, and nothing of it served.
     */
    public static void assertRouteRefused(String error, Object... resources) {
        Translation t = translate(resources);
        ResourceReport r = routeReport(t, "shop", "site");
        org.assertj.core.api.Assertions.assertThat(r.errors()).as(error).singleElement().asString().startsWith(error);
        org.assertj.core.api.Assertions.assertThat(r.accepted().status()).as(error).isFalse();
        org.assertj.core.api.Assertions.assertThat(routeNames(t)).as(error).isEmpty();
    }

    /**
     * Each case, {@code { rule, error }}, as the one rule of Route {@code shop/site} on example.com (the rule's YAML
     * after {@code - }, its later lines indented by two), is refused with that error ({@link #assertRouteRefused}).
     */
    public static void assertRulesRefused(String[][] cases, Object... more) {
        for (String[] c : cases) {
            Object[] resources = new Object[more.length + 1];
            resources[0] = route("shop", "site", 1, "hosts: [ example.com ]\nrules:\n- " + c[0]);
            System.arraycopy(more, 0, resources, 1, more.length);
            assertRouteRefused(c[1], resources);
        }
    }

    public static ResourceReport upstreamReport(Translation t, String ns, String name) {
        return t.report(new ResourceKey("Upstream", ns, name));
    }

    /** Route names in the {@code strait} class's snapshot, in order. */
    public static List<String> routeNames(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().map(dev.strait.model.Route::name).toList();
    }

    public static Config parse(String yaml) {
        try {
            return ConfigParser.parse(yaml, "expected");
        } catch (InvalidConfigException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }
}
