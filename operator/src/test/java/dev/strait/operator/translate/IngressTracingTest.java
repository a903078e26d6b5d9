package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import dev.strait.model.IpBlock;
import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's OpenTelemetry annotations: Strait traces per controller (the operator's {@code --proxy-tracing-*}),
 * so {@code enable-opentelemetry} and {@code opentelemetry-trust-incoming-span} that agree with it say nothing, and
 * what differs is reported (ResolvedRefs reason {@code UnsupportedAnnotation}) while the paths serve: tracing observes
 * and guards nothing, so it never makes a path answer 503.
 */
class IngressTracingTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String SITE = """
            ingressClassName: strait
            rules:
              - host: shop.example.com
                http:
                  paths:
                    - { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
            """;
    private static final String COLLECTOR = "http://otel-collector.monitoring:4318/v1/traces";
    /** Tracing on, every client's traceparent continued: as with {@code --proxy-tracing-endpoint} alone. */
    private static final Config.Tracing ON = new Config.Tracing(COLLECTOR);
    private static final Config.Tracing TRUSTING_NONE = new Config.Tracing(COLLECTOR, 100, "strait", false, List.of(),
            Config.Tracing.DEFAULT_FLUSH_INTERVAL);
    private static final Config.Tracing TRUSTING_THE_MESH = new Config.Tracing(COLLECTOR, 100, "strait", true,
            List.of(IpBlock.parse("10.0.0.0/8"), IpBlock.parse("fd00::/8")), Config.Tracing.DEFAULT_FLUSH_INTERVAL);
    private static final Route.Backends SERVED = new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1)));

    /** The Ingress with these annotations ({@code name, value, ...}) on a controller with this tracing (null: off). */
    private static Translation translate(Config.Tracing tracing, String... annotations) {
        ProxyDefaults d = ProxyDefaults.STANDARD;
        Translator translator = new Translator(new ProxyDefaults(d.defaultClass(), d.sidecarClass(), d.http(), d.https(),
                d.admin(), d.limits(), d.accessLog(), d.forwardedHeaders(), d.proxyProtocol(), tracing));
        return translator.translate(Fixtures.inputs(service("shop", "web", "http:80"),
                slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                IngressAnnotationsTest.annotated("site", SITE, annotations)));
    }

    private static List<String> errors(Translation t) {
        return ingressReport(t, "shop", "site").errors();
    }

    /** Every rule of the snapshot sends to the Ingress's Service: nothing answers 503. */
    private static void assertServed(Translation t) {
        assertThat(t.snapshot(STRAIT).config().routes()).flatExtracting(Route::rules).extracting(Route.Rule::action)
                .isNotEmpty().containsOnly(SERVED);
    }

    @Test
    void enableOpenTelemetryOnATracingControllerIsHonoured() {
        for (String on : List.of("true", "True", "1")) {
            Translation t = translate(ON, "enable-opentelemetry", on);
            assertThat(errors(t)).as(on).isEmpty();
            assertThat(ingressReport(t, "shop", "site").resolvedRefs().status()).isTrue();
            assertThat(t.snapshot(STRAIT).config().tracing()).isEqualTo(ON);
            assertServed(t);
        }
    }

    @Test
    void enableOpenTelemetryWithoutTracingIsReportedNamingTheSettingAndThePathsServe() {
        Translation t = translate(null, "enable-opentelemetry", "true");
        assertThat(errors(t)).containsExactly("metadata.annotations[" + N + "enable-opentelemetry]: not applied: tracing"
                + " is turned on per controller, and it is off (the operator's --proxy-tracing-endpoint,"
                + " Helm value proxy.tracing.endpoint); the paths serve untraced");
        assertThat(ingressReport(t, "shop", "site").resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
        assertThat(t.snapshot(STRAIT).config().tracing()).isNull();
        assertServed(t);
    }

    /** ingress-nginx's enable-opentelemetry: "false" turns tracing off on the Ingress's paths: each rule's tracing: false. */
    @Test
    void enableOpenTelemetryFalseTurnsTracingOffForTheIngressesPaths() {
        for (String off : List.of("false", "False", "0")) {
            Translation t = translate(ON, "enable-opentelemetry", off);
            assertThat(errors(t)).as(off).isEmpty();
            assertServed(t);
            assertThat(t.snapshot(STRAIT).config().routes()).flatExtracting(Route::rules).extracting(Route.Rule::tracing)
                    .as(off).isNotEmpty().containsOnly(false);
            assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes()).flatExtracting(Route::rules)
                    .extracting(Route.Rule::tracing).containsOnly(false);
        }
        assertThat(translate(ON).snapshot(STRAIT).config().routes()).flatExtracting(Route::rules)
                .extracting(Route.Rule::tracing).as("traced by default").containsOnly(true);
        assertThat(errors(translate(null, "enable-opentelemetry", "false"))).as("off, as asked").isEmpty();
    }

    @Test
    void trustIncomingSpanLikeTheControllersSaysNothing() {
        assertThat(errors(translate(ON, "enable-opentelemetry", "true", "opentelemetry-trust-incoming-span", "true")))
                .isEmpty();
        assertThat(errors(translate(TRUSTING_NONE, "opentelemetry-trust-incoming-span", "false"))).isEmpty();
        // Without tracing a client's traceparent goes upstream as sent: what trusting it asks.
        assertThat(errors(translate(null, "opentelemetry-trust-incoming-span", "true"))).isEmpty();
    }

    @Test
    void trustIncomingSpanUnlikeTheControllersIsReportedAndThePathsServe() {
        String field = "metadata.annotations[" + N + "opentelemetry-trust-incoming-span]: ";
        String setting = " (the operator's --proxy-tracing-trust-incoming, Helm value proxy.tracing.trustIncoming);"
                + " the paths serve";
        Translation t = translate(ON, "opentelemetry-trust-incoming-span", "false");
        assertThat(errors(t)).containsExactly(field + "\"false\" cannot be applied to one Ingress: the controller"
                + " continues every client's trace" + setting);
        assertThat(ingressReport(t, "shop", "site").resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
        assertServed(t);
        assertThat(errors(translate(TRUSTING_NONE, "opentelemetry-trust-incoming-span", "true"))).containsExactly(
                field + "\"true\" cannot be applied to one Ingress: the controller continues no client's trace" + setting);
        // Trusting only some peers is neither yes nor no.
        for (String v : List.of("true", "false")) {
            assertThat(errors(translate(TRUSTING_THE_MESH, "opentelemetry-trust-incoming-span", v))).containsExactly(
                    field + "\"" + v + "\" cannot be applied to one Ingress: the controller continues the traces of"
                            + " clients from 10.0.0.0/8, fd00::/8 only" + setting);
        }
        t = translate(null, "opentelemetry-trust-incoming-span", "false");
        assertThat(errors(t)).containsExactly(field + "\"false\" is not applied: tracing is off (the operator's"
                + " --proxy-tracing-endpoint, Helm value proxy.tracing.endpoint), and a client's traceparent goes upstream"
                + " as sent; the paths serve");
        assertServed(t);
    }

    @Test
    void operationNameIsReportedAsNotReadAndThePathsServe() {
        for (Config.Tracing tracing : new Config.Tracing[] {ON, null}) {
            Translation t = translate(tracing, "opentelemetry-operation-name", "shop-$request_method");
            assertThat(errors(t)).containsExactly("metadata.annotations[" + N + "opentelemetry-operation-name]: is not"
                    + " read by Strait, which names its spans itself (docs/config.md, Tracing); it has no effect");
            assertThat(ingressReport(t, "shop", "site").resolvedRefs().reason())
                    .isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertServed(t);
        }
    }

    @Test
    void aValueThatIsNeitherTrueNorFalseIsReportedAndChangesNothing() {
        Translation t = translate(ON, "enable-opentelemetry", "yes", "opentelemetry-trust-incoming-span", "maybe");
        assertThat(errors(t)).containsExactly(
                "metadata.annotations[" + N + "enable-opentelemetry]: \"yes\" is neither true nor false; it has no effect",
                "metadata.annotations[" + N + "opentelemetry-trust-incoming-span]: \"maybe\" is neither true nor false;"
                        + " it has no effect");
        assertServed(t);
    }

    /** With ssl-passthrough no other annotation applies, as in ingress-nginx: these are said so too. */
    @Test
    void withSslPassthroughTheyAreNotApplied() {
        Translation t = translate(ON, "ssl-passthrough", "true", "enable-opentelemetry", "true");
        assertThat(errors(t)).contains("metadata.annotations[" + N + "enable-opentelemetry]: not applied: with"
                + " metadata.annotations[" + N + "ssl-passthrough] the connections go to the backend as they are, and no"
                + " other annotation applies (as in ingress-nginx)");
    }
}
