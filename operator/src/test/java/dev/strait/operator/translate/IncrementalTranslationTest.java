package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.ingress;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static dev.strait.operator.translate.Fixtures.upstream;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.operator.crd.Route;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ADR 0025: a translator that reuses what it made before (per-source results, claim keys, written
 * snapshot fragments) gives exactly what a new translator gives for the same inputs, after any sequence
 * of changes. Each step changes the world as an informer cache would (a changed resource is a new
 * object, an unchanged one stays the same object), then compares the long-lived translator's result
 * with a fresh one's on the same resources in another order: every scope's snapshot JSON and version,
 * every report, every content hash.
 */
class IncrementalTranslationTest {
    private static final String[] HOSTS = {"a.example.com", "b.example.com", "c.example.com", "*.example.com"};
    private static final String[] NAMESPACES = {"shop", "blog"};

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    void incrementalEqualsFromScratch(long seed) {
        Random rnd = new Random(seed);
        Map<String, Object> world = new TreeMap<>();
        for (String ns : NAMESPACES) {
            world.put("svc/" + ns + "/api", service(ns, "api", "http:8080"));
            world.put("slice/" + ns + "/api", slice(ns, "api", "api-1", "http", 3000, "10.0.0.1"));
            world.put("upstream/" + ns + "/api", upstream(ns, "api", "service: { name: api, port: 8080 }"));
            world.put("secret/" + ns + "/tls", Fixtures.tlsSecret(ns, "tls", Fixtures.CERT, Fixtures.KEY));
        }
        for (int i = 0; i < 12; i++) {
            String[] k = routeKey(rnd).split("/");
            world.put(String.join("/", k), randomRoute(rnd, k[1], k[2]));
        }
        Translator incremental = new Translator(ProxyDefaults.STANDARD);
        Random writes = new Random(seed * 31); // apart from rnd, so the sequences of changes stay what they were
        Random kinds = new Random(seed * 37);
        for (int step = 0; step < 60; step++) {
            change(world, rnd);
            statusWrite(world, writes);
            serviceKind(world, kinds);
            List<Object> resources = new ArrayList<>(world.values());
            Translation got = incremental.translate(Fixtures.inputs(resources.toArray()));
            Collections.shuffle(resources, rnd);
            Translation want = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(resources.toArray()));
            String at = "seed " + seed + ", step " + step;
            assertThat(got.scopes()).as(at).isEqualTo(want.scopes());
            for (Scope s : new TreeSet<>(want.scopes())) {
                assertThat(got.snapshot(s).json()).as(at + ", " + s).isEqualTo(want.snapshot(s).json());
                assertThat(got.snapshot(s).version()).as(at).isEqualTo(want.snapshot(s).version());
                assertThat(got.snapshot(s).config()).as(at).isEqualTo(want.snapshot(s).config());
                assertThat(got.snapshot(s).tree()).as(at).isEqualTo(want.snapshot(s).tree());
            }
            assertThat(got.reports()).as(at).isEqualTo(want.reports());
            for (ResourceKey k : want.reports().keySet()) {
                assertThat(got.content(k)).as(at + ", " + k).isEqualTo(want.content(k));
            }
        }
        assertThat(incremental.reused()).as("sources reused rather than translated again").isGreaterThan(100);
    }

    /**
     * Now and then a status write: another object of a Route with the same spec and generation (the
     * translation takes its state as it was, see Translator.sameSpec), sometimes of every Route at once.
     */
    private static void statusWrite(Map<String, Object> world, Random rnd) {
        int what = rnd.nextInt(6);
        for (Map.Entry<String, Object> e : world.entrySet()) {
            if (e.getValue() instanceof Route r && (what == 0 || what == 1 && rnd.nextInt(3) == 0)) {
                Route written = Serialization.clone(r);
                written.setStatus(new dev.strait.operator.crd.ResourceStatus());
                e.setValue(written);
            }
        }
    }

    /**
     * Now and then a Service api becomes of type ExternalName, or a plain one again (ADR 0025 with ExternalName
     * Services): a name outside (its upstream's endpoint), a refused one, the other namespace's api by its cluster
     * name (with that one's consent or without, or an ExternalName itself: a chain), or ports that change. Its
     * consent annotation stays as it was.
     */
    private static void serviceKind(Map<String, Object> world, Random rnd) {
        if (rnd.nextInt(4) != 0) {
            return;
        }
        String ns = NAMESPACES[rnd.nextInt(NAMESPACES.length)];
        String other = ns.equals("shop") ? "blog" : "shop";
        String key = "svc/" + ns + "/api";
        io.fabric8.kubernetes.api.model.Service now = (io.fabric8.kubernetes.api.model.Service) world.get(key);
        if (now == null) {
            return;
        }
        io.fabric8.kubernetes.api.model.Service next = switch (rnd.nextInt(6)) {
            case 0 -> Fixtures.externalName(ns, "api", "api.example.com", "http:8080");
            case 1 -> Fixtures.externalName(ns, "api", "API.Example.org.");
            case 2 -> Fixtures.externalName(ns, "api", "api." + other + ".svc.cluster.local", "http:8080");
            case 3 -> Fixtures.externalName(ns, "api", rnd.nextBoolean() ? "localhost" : "169.254.169.254");
            case 4 -> Fixtures.externalName(ns, "api", "api.example.com", "http:9090");
            default -> service(ns, "api", "http:8080");
        };
        next.getMetadata().setAnnotations(now.getMetadata().getAnnotations());
        world.put(key, next);
    }

    /** A status write (a new object, same generation) keeps the Route's state: its Service upstream is not made again. */
    @Test
    void aStatusWriteKeepsTheRouteStateWithoutResolvingItAgain() {
        List<Object> world = new ArrayList<>(List.of(service("shop", "api", "http:8080"),
                slice("shop", "api", "api-1", "http", 3000, "10.0.0.1"),
                Fixtures.route("shop", "site", 1, """
                        hosts: [ example.com ]
                        rules: [ { backends: [ { service: { name: api, port: 8080 } } ] } ]""")));
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        Translation first = translator.translate(Fixtures.inputs(world.toArray()));
        Route written = Serialization.clone((Route) world.get(2));
        written.setStatus(new dev.strait.operator.crd.ResourceStatus());
        world.set(2, written);
        Translation next = translator.translate(Fixtures.inputs(world.toArray()));
        assertThat(next.snapshot(Fixtures.STRAIT).version()).isEqualTo(first.snapshot(Fixtures.STRAIT).version());
        assertThat(next.snapshot(Fixtures.STRAIT).config().upstreams().get(0))
                .isSameAs(first.snapshot(Fixtures.STRAIT).config().upstreams().get(0));

        // A spec change bumps the generation: the Route is resolved again.
        Route edited = Serialization.clone(written);
        edited.getMetadata().setGeneration(edited.getMetadata().getGeneration() + 1);
        world.set(2, edited);
        Translation third = translator.translate(Fixtures.inputs(world.toArray()));
        assertThat(third.snapshot(Fixtures.STRAIT).config().upstreams().get(0))
                .isNotSameAs(first.snapshot(Fixtures.STRAIT).config().upstreams().get(0))
                .isEqualTo(first.snapshot(Fixtures.STRAIT).config().upstreams().get(0));
    }

    private static String routeKey(Random rnd) {
        return "route/" + NAMESPACES[rnd.nextInt(NAMESPACES.length)] + "/r" + rnd.nextInt(20);
    }

    /**
     * One change: a Route edited, added, deleted or created again (most often), or something it
     * references. Conflicts kept between translations (ADR 0028) must follow every kind: an owner
     * deleted (a younger Route takes over), an edit that moves a Route to other hosts or matches (it
     * frees some keys and contests others), a Route created again with the same name and spec but
     * another age (older or younger than its rivals now), and Routes with two hosts, which lose a whole
     * match for one host and so leave its other host to a younger Route.
     */
    private static void change(Map<String, Object> world, Random rnd) {
        int what = rnd.nextInt(25);
        String ns = NAMESPACES[rnd.nextInt(NAMESPACES.length)];
        if (what < 10) {
            // An edit keeps the Route's age; a new Route gets one.
            String k = routeKey(rnd);
            String[] parts = k.split("/");
            Route old = (Route) world.get(k);
            world.put(k, randomRoute(rnd, parts[1], parts[2], old == null ? rnd.nextInt(60) : minute(old)));
        } else if (what < 12) {
            // Created again: same name and spec, another creation time (and so another place among its rivals).
            List<String> routes = world.keySet().stream().filter(k -> k.startsWith("route/")).toList();
            if (!routes.isEmpty()) {
                String k = routes.get(rnd.nextInt(routes.size()));
                Route again = Serialization.clone((Route) world.get(k));
                again.getMetadata().setCreationTimestamp("2026-11-30T10:%02d:00Z".formatted(rnd.nextInt(60)));
                world.put(k, again);
            }
        } else if (what < 13) {
            // Only the hosts change, keeping rules and age.
            List<String> routes = world.keySet().stream().filter(k -> k.startsWith("route/")).toList();
            if (!routes.isEmpty()) {
                String k = routes.get(rnd.nextInt(routes.size()));
                Route moved = Serialization.clone((Route) world.get(k));
                moved.getSpec().hosts = hosts(rnd);
                moved.getMetadata().setGeneration(moved.getMetadata().getGeneration() + 1);
                world.put(k, moved);
            }
        } else if (what < 17) {
            List<String> routes = world.keySet().stream().filter(k -> k.startsWith("route/")).toList();
            if (!routes.isEmpty()) {
                world.remove(routes.get(rnd.nextInt(routes.size())));
            }
        } else if (what < 19) {
            // Endpoints move: every Route using the Service's upstream must see the new ones.
            String[] eps = rnd.nextBoolean() ? new String[] {"10.0.0.1", "10.0.0.2"} : new String[] {"10.0.0." + (3 + rnd.nextInt(3))};
            world.put("slice/" + ns + "/api", slice(ns, "api", "api-1", "http", 3000, eps));
        } else if (what < 21) {
            if (world.remove("upstream/" + ns + "/api") == null) {
                world.put("upstream/" + ns + "/api", upstream(ns, "api", rnd.nextBoolean()
                        ? "service: { name: api, port: 8080 }" : "service: { name: api, port: 8080 }\nloadBalancer: least-request"));
            }
        } else if (what < 22) {
            if (world.remove("secret/" + ns + "/tls") == null) {
                world.put("secret/" + ns + "/tls", Fixtures.tlsSecret(ns, "tls", Fixtures.CERT, Fixtures.KEY));
            }
        } else if (what < 23) {
            if (world.remove("svc/" + ns + "/api") == null) {
                world.put("svc/" + ns + "/api", service(ns, "api", "http:8080"));
            }
        } else if (what < 24) {
            // The Service accepts the other namespace's references, or stops accepting them (ADR 0078).
            Object svc = world.get("svc/" + ns + "/api");
            if (svc != null) {
                io.fabric8.kubernetes.api.model.Service edited = Serialization.clone((io.fabric8.kubernetes.api.model.Service) svc);
                edited.getMetadata().setAnnotations(edited.getMetadata().getAnnotations() == null
                        ? Map.of(Consent.ANNOTATION, "*") : null);
                world.put("svc/" + ns + "/api", edited);
            }
        } else {
            String name = "ing" + rnd.nextInt(3);
            if (world.remove("ingress/" + ns + "/" + name) == null) {
                world.put("ingress/" + ns + "/" + name, ingress(ns, name, rnd.nextInt(60), """
                        ingressClassName: strait
                        rules:
                          - host: %s
                            http:
                              paths:
                                - { path: /a, pathType: Exact, backend: { service: { name: api, port: { number: 8080 } } } }
                        """.formatted(HOSTS[rnd.nextInt(3)])));
            }
        }
    }

    /**
     * Few hosts and paths, so Routes conflict often; sometimes invalid, sometimes of another class (its
     * own scope), with an Upstream, a Service backend or a TLS Secret, which may be missing.
     */
    private static Route randomRoute(Random rnd, String ns, String name) {
        return randomRoute(rnd, ns, name, rnd.nextInt(60));
    }

    private static Route randomRoute(Random rnd, String ns, String name, int minute) {
        StringBuilder spec = new StringBuilder();
        if (rnd.nextInt(6) == 0) {
            spec.append("ingressClassName: other\n");
        }
        if (rnd.nextInt(5) == 0) {
            spec.append("tls: { secretName: ").append(rnd.nextInt(4) == 0 ? "missing" : "tls").append(" }\n");
        }
        spec.append("hosts: [ \"").append(String.join("\", \"", hosts(rnd))).append("\" ]\n");
        spec.append("rules:\n");
        int rules = 1 + rnd.nextInt(3);
        for (int i = 0; i < rules; i++) {
            String path = "/" + (char) ('a' + rnd.nextInt(3));
            String type = rnd.nextBoolean() ? "Exact" : "Prefix";
            if (rnd.nextInt(4) == 0) {
                spec.append("  - ");
            } else {
                spec.append("  - matches: [ { path: { type: ").append(type).append(", value: ").append(path).append(" } } ]\n    ");
            }
            switch (rnd.nextInt(5)) {
                case 0 -> spec.append("backends: [ { upstream: ").append(rnd.nextInt(4) == 0 ? "nope" : "api").append(" } ]\n");
                case 1 -> spec.append("backends: [ { service: { name: api, ").append(rnd.nextInt(3) == 0
                        ? "namespace: " + (ns.equals("shop") ? "blog" : "shop") + ", " : "").append("port: 8080 } } ]\n");
                case 2 -> spec.append("respond: { status: 999 }\n"); // invalid
                default -> spec.append("respond: { status: 200, body: \"v").append(rnd.nextInt(3)).append("\" }\n");
            }
        }
        return route(ns, name, minute, spec.toString());
    }

    /** One host, or (a third of the time) two. */
    private static List<String> hosts(Random rnd) {
        String first = HOSTS[rnd.nextInt(HOSTS.length)];
        String second = HOSTS[rnd.nextInt(HOSTS.length)];
        return rnd.nextInt(3) == 0 && !second.equals(first) ? List.of(first, second) : List.of(first);
    }

    private static int minute(Route r) {
        return Integer.parseInt(r.getMetadata().getCreationTimestamp().substring(14, 16));
    }
}
