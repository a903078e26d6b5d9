package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingress;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A path of an Ingress that the config model refuses (it can never meet a request) is reported with its field
 * and left out; the other paths of the Ingress, on its host and on others, keep serving.
 */
class IngressBadPathTest {
    private static Translation translate(String paths) {
        return Fixtures.translate(service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                ingress("shop", "site", 1, """
                        ingressClassName: strait
                        rules:
                          - host: a.example.com
                            http:
                              paths:
                        %s
                          - host: b.example.com
                            http:
                              paths:
                                - { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
                        """.formatted(paths.indent(8))));
    }

    private static String web(String path, String type) {
        return "- { path: \"" + path + "\", pathType: " + type + ", backend: { service: { name: web, port: { number: 80 } } } }";
    }

    private static List<String> served(Translation t, String host) {
        return t.snapshot(STRAIT).config().routes().stream()
                .filter(r -> r.hosts().contains(host))
                .flatMap(r -> r.rules().stream())
                .map(rule -> rule.matches().get(0).path().type() + " " + rule.matches().get(0).path().value())
                .toList();
    }

    @Test
    void aPathTheModelRefusesIsReportedAndLeftOutWhileTheRestServes() {
        String[][] cases = {
            {"/api v2", "Prefix", "is not a request path"},
            {"/a//b", "Exact", "never meets a request"},
            {"/x?y=1", "ImplementationSpecific", "holds a query or fragment"},
            {"/%7Euser", "Prefix", "never meets a request"},
        };
        for (String[] c : cases) {
            Translation t = translate(web("/shop", "Prefix") + "\n" + web(c[0], c[1]));
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[0]).singleElement().asString()
                    .startsWith("spec.rules[0].http.paths[1].path: \"" + c[0] + "\"")
                    .contains(c[2])
                    .endsWith("; the path is left out");
            assertThat(r.accepted().status()).as(c[0]).isTrue();
            assertThat(r.resolvedRefs().status()).isFalse();
            assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.INVALID_PATH);
            assertThat(r.scopes()).containsExactly(STRAIT);
            assertThat(served(t, "a.example.com")).as(c[0]).containsExactly(Route.PathType.Prefix + " /shop");
            assertThat(served(t, "b.example.com")).as(c[0]).containsExactly(Route.PathType.Prefix + " /");
        }
    }

    @Test
    void aHostWhosePathsAreAllRefusedIsReportedAndTheOtherHostsServe() {
        Translation t = translate(web("/a b", "Prefix"));
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.errors()).singleElement().asString().startsWith("spec.rules[0].http.paths[0].path: \"/a b\"");
        assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.INVALID_PATH);
        assertThat(served(t, "a.example.com")).isEmpty();
        assertThat(served(t, "b.example.com")).containsExactly(Route.PathType.Prefix + " /");
    }
}
