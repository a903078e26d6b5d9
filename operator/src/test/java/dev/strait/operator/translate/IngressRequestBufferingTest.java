package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.IngressAnnotationsTest.annotated;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx reads whole request bodies before asking the backend ({@code proxy-request-buffering: on}, its
 * default), up to {@code client-body-buffer-size} in memory and the rest in a temporary file: every backend rule of an
 * Ingress gets {@code requestBuffering} up to its body limit ({@code proxy-body-size}, else the proxy's
 * {@code limits.maxBodyBytes}), that much in memory, unless it asks {@code off} or speaks gRPC (nginx's
 * {@code grpc_pass} never buffers). What cannot be read is reported and the default kept; the paths serve.
 */
class IngressRequestBufferingTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String BUFFERING = "metadata.annotations[" + N + "proxy-request-buffering]";
    private static final String SIZE = "metadata.annotations[" + N + "client-body-buffer-size]";
    private static final String BODY_SIZE = "metadata.annotations[" + N + "proxy-body-size]";
    /** Two paths (one whose Service is missing) and a defaultBackend. */
    private static final String SITE = IngressAnnotationsTest.SITE;
    private static final String GONE = "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found";
    /** The proxy's body limit ({@code limits.maxBodyBytes}, 1 GiB) read first, 1 MiB of it in memory. */
    private static final Route.RequestBuffering DEFAULT = new Route.RequestBuffering(1L << 30, 1L << 20);

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

    /**
     * Apps moved from ingress-nginx rely on bodies read first without knowing: on by default, whole bodies up to the
     * proxy's body limit, 1 MiB of them in memory (nginx's own buffer is 8k or 16k; the rest goes to a file).
     */
    @Test
    void everyBackendRuleReadsBodiesFirstByDefault() {
        // The limit an Ingress without proxy-body-size gets 413 past.
        assertThat(DEFAULT.maxBytes()).isEqualTo(dev.strait.model.Limits.DEFAULTS.maxBodyBytes());
        for (String[] annotations : new String[][] {{}, {"proxy-request-buffering", "on"},
            {"proxy-request-buffering", " On "}, {"backend-protocol", "HTTPS"}, {"backend-protocol", "AUTO_HTTP"}}) {
            Translation t = translate(annotations);
            assertThat(ingressReport(t, "shop", "site").errors()).as(String.join(" ", annotations)).containsExactly(GONE);
            assertThat(buffering(t)).as(String.join(" ", annotations)).isEqualTo(DEFAULT);
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
                .extracting(Route.Rule::requestBuffering).containsOnly(DEFAULT);
    }

    /** nginx's size syntax (ngx_parse_size): bytes, or a number with k or m, either case. */
    @Test
    void clientBodyBufferSizeIsHowMuchIsHeldInMemory() {
        String[][] cases = {{"64k", "65536"}, {"8K", "8192"}, {"1m", "1048576"}, {"16M", "16777216"},
            {"1048576", "1048576"}, {" 512 ", "512"}, {"1", "1"}, {"64m", "67108864"}};
        for (String[] c : cases) {
            Translation t = translate("client-body-buffer-size", c[0]);
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[0]).containsExactly(GONE);
            assertThat(buffering(t)).as(c[0]).isEqualTo(new Route.RequestBuffering(1L << 30, Long.parseLong(c[1])));
        }
    }

    /**
     * nginx reads the whole body first, and refuses one over {@code client_max_body_size} before reading it: the
     * rules read up to proxy-body-size, whose 0 (no limit) is the most the config reads, 1 TiB. What is held in
     * memory is never more than what is read.
     */
    @Test
    void proxyBodySizeIsHowMuchIsReadFirst() {
        String[][] cases = {
            // proxy-body-size, client-body-buffer-size (or ""), maxBytes, memoryBytes
            {"8m", "16k", "8388608", "16384"},
            {"8m", "", "8388608", "1048576"},
            {"2G", "64m", "2147483648", "67108864"},
            {"0", "", "1099511627776", "1048576"},
            {"0", "256k", "1099511627776", "262144"},
            {"1025g", "", "1099511627776", "1048576"},
            {"99999999999999999g", "", "1099511627776", "1048576"},
            {"1500", "", "1500", "1500"},
            {"8m", "16m", "8388608", "8388608"},
            {"16k", "64k", "16384", "16384"},
        };
        for (String[] c : cases) {
            Translation t = c[1].isEmpty() ? translate("proxy-body-size", c[0])
                    : translate("proxy-body-size", c[0], "client-body-buffer-size", c[1]);
            String as = c[0] + " " + c[1];
            assertThat(ingressReport(t, "shop", "site").errors()).as(as).containsExactly(GONE);
            assertThat(buffering(t)).as(as)
                    .isEqualTo(new Route.RequestBuffering(Long.parseLong(c[2]), Long.parseLong(c[3])));
        }
        // A proxy-body-size that is no size leaves the proxy's limit, and so the default reading.
        Translation t = translate("proxy-body-size", "10mb", "client-body-buffer-size", "16k");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(GONE, BODY_SIZE + ": \"10mb\" is"
                + " not a size (bytes, or a number with k, m or g); the proxy's limits.maxBodyBytes applies");
        assertThat(buffering(t)).isEqualTo(new Route.RequestBuffering(1L << 30, 16L << 10));
    }

    /** {@code off} streams bodies as they come, as Strait's Routes do by default; the sizes then change nothing. */
    @Test
    void offStreamsBodies() {
        assertThat(buffering(translate("client-body-buffer-size", "64k"))).as("on").isNotNull();
        for (String[] annotations : new String[][] {{"proxy-request-buffering", "off"},
            {"proxy-request-buffering", "OFF"}, {"proxy-request-buffering", "off", "client-body-buffer-size", "64k"},
            {"proxy-request-buffering", "off", "proxy-body-size", "8m"}}) {
            Translation t = translate(annotations);
            assertThat(ingressReport(t, "shop", "site").errors()).as(String.join(" ", annotations)).containsExactly(GONE);
            assertThat(buffering(t)).as(String.join(" ", annotations)).isNull();
        }
    }

    /** nginx's grpc_pass never buffers a request body, and gRPC calls stream: backends spoken to as gRPC get none. */
    @Test
    void grpcBackendsStream() {
        assertThat(buffering(translate("backend-protocol", "HTTP", "client-body-buffer-size", "64k"))).as("HTTP")
                .isEqualTo(new Route.RequestBuffering(1L << 30, 64L << 10));
        for (String protocol : List.of("GRPC", "GRPCS", "grpc")) {
            Translation t = translate("backend-protocol", protocol, "client-body-buffer-size", "64k");
            assertThat(ingressReport(t, "shop", "site").errors()).as(protocol).containsExactly(GONE);
            assertThat(buffering(t)).as(protocol).isNull();
        }
    }

    /** FastCGI backends answer 503 from an Ingress (and read bodies first anyway): their stand-ins read none. */
    @Test
    void fastCgiBackendsReadNone() {
        assertThat(buffering(translate("backend-protocol", "HTTP"))).as("HTTP").isEqualTo(DEFAULT);
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
            assertThat(buffering(t)).as(c[1]).isEqualTo(DEFAULT);
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
        assertThat(about.requestBuffering()).isEqualTo(new Route.RequestBuffering(1L << 30, 64L << 10));
    }
}
