package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each proxy gets only the Routes of its scope, and only the Upstreams those Routes use. */
class ScopesTest {
    private static Translation all() {
        return Fixtures.translate(
                route("shop", "default-class", 1, "hosts: [ a.example.com ]\nrules: [ { backends: [ { upstream: api } ] } ]"),
                route("shop", "named-default", 2, "ingressClassName: strait\nhosts: [ b.example.com ]\nrules: [ { respond: { status: 200 } } ]"),
                route("shop", "internal", 3, "ingressClassName: internal\nhosts: [ c.example.com ]\nrules: [ { respond: { status: 200 } } ]"),
                route("shop", "side", 4, "ingressClassName: strait-sidecar\nhosts: [ \"*\" ]\nrules: [ { respond: { status: 200 } } ]"),
                route("blog", "side", 5, "ingressClassName: strait-sidecar\nhosts: [ \"*\" ]\nrules: [ { respond: { status: 200 } } ]"),
                Fixtures.upstream("shop", "api", "service: { name: api, port: 80 }"),
                Fixtures.upstream("shop", "unused", "service: { name: api, port: 80 }"));
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(Scope.ingress("strait"), List.of("shop.default-class", "shop.named-default"), List.of("upstream.shop.api")),
                Arguments.of(Scope.ingress("internal"), List.of("shop.internal"), List.of()),
                Arguments.of(Scope.sidecar("strait-sidecar", "shop"), List.of("shop.side"), List.of()),
                Arguments.of(Scope.sidecar("strait-sidecar", "blog"), List.of("blog.side"), List.of()),
                Arguments.of(Scope.sidecar("strait-sidecar", "empty"), List.of(), List.of()),
                Arguments.of(Scope.ingress("nobody"), List.of(), List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void snapshotHoldsItsScopeOnly(Scope scope, List<String> routes, List<String> upstreams) {
        Translation t = all();
        assertThat(t.snapshot(scope).config().routes()).extracting(Route::name).containsExactlyElementsOf(routes);
        assertThat(t.snapshot(scope).config().upstreams()).extracting(dev.strait.model.Upstream::name)
                .containsExactlyElementsOf(upstreams);
    }

    @org.junit.jupiter.api.Test
    void reportsNameTheScopesThatCarryTheResource() {
        Translation t = all();
        assertThat(Fixtures.routeReport(t, "blog", "side").scopes()).containsExactly(Scope.sidecar("strait-sidecar", "blog"));
        assertThat(Fixtures.upstreamReport(t, "shop", "api").scopes()).containsExactly(Scope.ingress("strait"));
        assertThat(Fixtures.upstreamReport(t, "shop", "unused").scopes()).isEmpty();
    }
}
