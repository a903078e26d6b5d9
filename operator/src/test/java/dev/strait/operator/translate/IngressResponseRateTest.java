package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.IngressAnnotationsTest.annotated;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's {@code limit-rate} and {@code limit-rate-after}, whole kilobytes as nginx's {@code limit_rate NK}:
 * every backend rule of the Ingress gets that {@code responseRate}; 0 is no limit, and what cannot be read is
 * reported and not applied while the paths serve.
 */
class IngressResponseRateTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String SITE = IngressAnnotationsTest.SITE;
    private static final String GONE = "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found";

    private static Translation translate(String... annotations) {
        return IngressAnnotationsTest.translate(annotated("site", SITE, annotations));
    }

    /** The one responseRate every backend rule of the Ingress has (both paths and the defaultBackends). */
    private static Route.ResponseRate rate(Translation t) {
        List<Route.Rule> rules = t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream()).toList();
        assertThat(rules).hasSize(4);
        assertThat(rules).extracting(Route.Rule::responseRate)
                .allMatch(r -> java.util.Objects.equals(r, rules.get(0).responseRate()));
        Fixtures.parse(t.snapshot(STRAIT).json()); // the proxies take it
        return rules.get(0).responseRate();
    }

    @Test
    void kilobytesASecondAfterKilobytes() {
        Translation t = translate("limit-rate", "100", "limit-rate-after", "1024");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        assertThat(rate(t)).isEqualTo(new Route.ResponseRate(100 * 1024, 1024 * 1024));
        assertThat(rate(translate("limit-rate", " 8 "))).isEqualTo(new Route.ResponseRate(8192, 0));
    }

    @Test
    void withoutARateOrWithZeroNothingIsPaced() {
        assertThat(rate(translate())).isNull();
        Translation zero = translate("limit-rate", "0");
        assertThat(ingressReport(zero, "shop", "site").errors()).containsExactly(GONE);
        assertThat(rate(zero)).isNull();
    }

    @Test
    void whatCannotBeReadIsReportedAndNotApplied() {
        String[][] cases = {
            {"limit-rate", "100k", "limit-rate", "\"100k\" is not a whole number of kilobytes; not applied"},
            {"limit-rate", "-5", "limit-rate", "\"-5\" is not a whole number of kilobytes; not applied"},
            {"limit-rate-after", "1024", "limit-rate-after", "without limit-rate there is nothing to start after; not applied"},
        };
        for (String[] c : cases) {
            Translation t = translate(c[0], c[1]);
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[1]).containsExactlyInAnyOrder(GONE,
                    "metadata.annotations[" + N + c[2] + "]: " + c[3]);
            assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(r.accepted().status()).isTrue();
            assertThat(rate(t)).as(c[1]).isNull();
        }
        // A bad after beside a good rate: the rate applies, from the first byte.
        Translation t = translate("limit-rate", "64", "limit-rate-after", "lots");
        assertThat(rate(t)).isEqualTo(new Route.ResponseRate(64 * 1024, 0));
    }
}
