package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.IngressAnnotationsTest.annotated;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx reads request bodies before asking the backend ({@code proxy-request-buffering: on}, its default), up
 * to {@code client-body-buffer-size} in memory: every backend rule of an Ingress gets {@code requestBuffering} unless
 * it asks {@code off} or speaks gRPC (nginx's {@code grpc_pass} never buffers). What cannot be read is reported and
 * the default kept; the paths serve.
 */
class IngressRequestBufferingTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String BUFFERING = "metadata.annotations[" + N + "proxy-request-buffering]";
    private static final String SIZE = "metadata.annotations[" + N + "client-body-buffer-size]";
    /** Two paths (one whose Service is missing) and a defaultBackend. */
    private static final String SITE = IngressAnnotationsTest.SITE;
    private static final String GONE = "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found";
    private static final Route.RequestBuffering ONE_MIB = new Route.RequestBuffering(1L << 20);

    private static Translation translate(String... annotations) {
        return IngressAnnotationsTest.translate(annotated("site", SITE, annotations));
    }

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream()).toList();
    }

    /** The one requestBuffering every rule of the Ingress has (both paths and the defaultBackends), or null for none. */
    private static Route.RequestBuffering buffering(Translation t) {
        List<Route.Rule> rules = rules(t);
        assertThat(rules).hasSize(4);
        assertThat(rules).extracting(Route.Rule::requestBuffering).allMatch(r -> java.util.Objects.equals(r,
                rules.get(0).requestBuffering()));
        Fixtures.parse(t.snapshot(STRAIT).json()); // the proxies take it
        return rules.get(0).requestBuffering();
    }

    /** Apps moved from ingress-nginx rely on bodies read first without knowing: on, with nginx's 1 MiB, by default. */
    @Test
    void everyBackendRuleReadsBodiesFirstByDefault() {
        for (String[] annotations : new String[][] {{}, {"proxy-request-buffering", "on"},
            {"proxy-request-buffering", " On "}, {"backend-protocol", "HTTPS"}, {"backend-protocol", "AUTO_HTTP"}}) {
            Translation t = translate(annotations);
            assertThat(ingressReport(t, "shop", "site").errors()).as(String.join(" ", annotations)).containsExactly(GONE);
            assertThat(buffering(t)).as(String.join(" ", annotations)).isEqualTo(ONE_MIB);
        }
    }

    /** A redirect answers before any body is wanted: only the rules with backends read one. */
    @Test
    void redirectsReadNoBody() {
        Translation t = translate("app-root", "/shop");
        List<Route.Rule> rules = rules(t);
        assertThat(rules).filteredOn(r -> r.action() instanceof Route.Redirect).singleElement()
                .extracting(Route.Rule::requestBuffering).isNull();
        assertThat(rules).filteredOn(r -> r.action() instanceof Route.Backends).hasSize(4)
                .extracting(Route.Rule::requestBuffering).containsOnly(ONE_MIB);
    }

    /** nginx's size syntax (ngx_parse_size): bytes, or a number with k or m, either case. */
    @Test
    void clientBodyBufferSizeIsHowMuchIsReadFirst() {
        String[][] cases = {{"64k", "65536"}, {"8K", "8192"}, {"1m", "1048576"}, {"16M", "16777216"},
            {"1048576", "1048576"}, {" 512 ", "512"}, {"1", "1"}, {"64m", "67108864"}};
        for (String[] c : cases) {
            Translation t = translate("client-body-buffer-size", c[0]);
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[0]).containsExactly(GONE);
            assertThat(buffering(t)).as(c[0]).isEqualTo(new Route.RequestBuffering(Long.parseLong(c[1])));
        }
    }

    /** {@code off} streams bodies as they come, as Strait's Routes do by default; its size then changes nothing. */
    @Test
    void offStreamsBodies() {
        assertThat(buffering(translate("client-body-buffer-size", "64k"))).as("on").isNotNull();
        for (String[] annotations : new String[][] {{"proxy-request-buffering", "off"},
            {"proxy-request-buffering", "OFF"}, {"proxy-request-buffering", "off", "client-body-buffer-size", "64k"}}) {
            Translation t = translate(annotations);
            assertThat(ingressReport(t, "shop", "site").errors()).as(String.join(" ", annotations)).containsExactly(GONE);
            assertThat(buffering(t)).as(String.join(" ", annotations)).isNull();
        }
    }

    /** nginx's grpc_pass never buffers a request body, and gRPC calls stream: backends spoken to as gRPC get none. */
    @Test
    void grpcBackendsStream() {
        assertThat(buffering(translate("backend-protocol", "HTTP", "client-body-buffer-size", "64k"))).as("HTTP")
                .isEqualTo(new Route.RequestBuffering(64L << 10));
        for (String protocol : List.of("GRPC", "GRPCS", "grpc")) {
            Translation t = translate("backend-protocol", protocol, "client-body-buffer-size", "64k");
            assertThat(ingressReport(t, "shop", "site").errors()).as(protocol).containsExactly(GONE);
            assertThat(buffering(t)).as(protocol).isNull();
        }
    }

    /** FastCGI backends answer 503 from an Ingress (and read bodies first anyway): their stand-ins read none. */
    @Test
    void fastCgiBackendsReadNone() {
        assertThat(buffering(translate("backend-protocol", "HTTP"))).as("HTTP").isEqualTo(ONE_MIB);
        Translation t = translate("backend-protocol", "FCGI");
        assertThat(ingressReport(t, "shop", "site").errors()).anyMatch(e -> e.contains("FastCGI backends are Upstreams"));
        assertThat(buffering(t)).isNull();
    }

    /** A value nginx would not read is reported, naming the annotation; the default applies and the paths serve. */
    @Test
    void badValuesAreReportedAndTheDefaultKept() {
        String sizeNotApplied = " is not a size from 1 byte to 64m (bytes, or a number with k or m); the default 1m"
                + " applies";
        String[][] cases = {
            {"proxy-request-buffering", "yes", BUFFERING + ": \"yes\" is not on or off; on, the default, applies"},
            {"proxy-request-buffering", "false", BUFFERING + ": \"false\" is not on or off; on, the default, applies"},
            {"client-body-buffer-size", "big", SIZE + ": \"big\"" + sizeNotApplied},
            {"client-body-buffer-size", "0", SIZE + ": \"0\"" + sizeNotApplied},
            {"client-body-buffer-size", "0k", SIZE + ": \"0k\"" + sizeNotApplied},
            {"client-body-buffer-size", "65m", SIZE + ": \"65m\"" + sizeNotApplied},
            {"client-body-buffer-size", "67108865", SIZE + ": \"67108865\"" + sizeNotApplied},
            {"client-body-buffer-size", "1g", SIZE + ": \"1g\"" + sizeNotApplied},
            {"client-body-buffer-size", "-1", SIZE + ": \"-1\"" + sizeNotApplied},
            {"client-body-buffer-size", "99999999999999999999", SIZE + ": \"99999999999999999999\"" + sizeNotApplied},
        };
        for (String[] c : cases) {
            Translation t = translate(c[0], c[1]);
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[1]).containsExactlyInAnyOrder(GONE, c[2]);
            assertThat(r.resolvedRefs().reason()).as(c[1]).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(r.accepted().status()).as(c[1]).isTrue();
            assertThat(buffering(t)).as(c[1]).isEqualTo(ONE_MIB);
        }
        // A bad size beside off: reported, and off still applies.
        Translation t = translate("proxy-request-buffering", "off", "client-body-buffer-size", "big");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(GONE, SIZE + ": \"big\""
                + sizeNotApplied);
        assertThat(buffering(t)).isNull();
    }

    /**
     * A canary's share is served by its primary's rule (ADR 0063), as ingress-nginx serves it from the primary's
     * location: the primary's buffering applies to it, the canary's own does not.
     */
    @Test
    void aCanarysShareIsBufferedAsItsPrimarys() {
        Translation t = IngressAnnotationsTest.withCanary(annotated("site", SITE, "client-body-buffer-size", "64k"),
                "canary-weight", "20", "proxy-request-buffering", "off");
        Route.Rule about = rules(t).stream().filter(r -> r.matches().get(0).path() != null
                && r.matches().get(0).path().value().equals("/about")).findFirst().orElseThrow();
        assertThat(((Route.Backends) about.action()).backends()).extracting(Route.Backend::upstream)
                .contains("service.shop.web-canary.80");
        assertThat(about.requestBuffering()).isEqualTo(new Route.RequestBuffering(64L << 10));
    }
}
