package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Route's {@code basicAuth.secretName} (ADR 0061): resolved to the Secret's checkable htpasswd lines, and
 * until it resolves to a user the rule answers 503 (only that rule), reported as an unresolved reference.
 */
class RouteBasicAuthTest {
    private static final String SPEC = """
            hosts: [ example.com ]
            rules:
              - matches: [ { path: { type: Prefix, value: /admin } } ]
                respond: { body: "admin" }
                basicAuth: { realm: Staff, secretName: staff }
              - respond: { body: "public" }
            """;

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().get(0).rules();
    }

    @Test
    void theSecretsUsersGuardTheRule() {
        Translation t = Fixtures.translate(route("shop", "site", 1, SPEC),
                Fixtures.authSecret("shop", "staff", "# staff\nalice:{PLAIN}x\n"));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t).get(0).basicAuth()).isEqualTo(new Route.BasicAuth("Staff", "alice:{PLAIN}x\n"));
        assertThat(rules(t).get(0).action()).isEqualTo(new Route.Respond(200, "admin", java.util.Map.of()));
    }

    @Test
    void anAuthMapSecretHoldsAKeyPerUser() {
        io.fabric8.kubernetes.api.model.Secret map = new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata().withNamespace("shop").withName("staff").endMetadata().withType("Opaque")
                .addToData("bob", Fixtures.b64("{PLAIN}y")).addToData("alice", Fixtures.b64("{PLAIN}x")).build();
        Translation t = Fixtures.translate(route("shop", "site", 1, SPEC.replace("secretName: staff",
                "secretName: staff, secretType: auth-map")), map);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t).get(0).basicAuth()).as("the keys in order, one line each")
                .isEqualTo(new Route.BasicAuth("Staff", "alice:{PLAIN}x\nbob:{PLAIN}y\n"));
        t = Fixtures.translate(route("shop", "site", 1, SPEC), map);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).as("read as a file, it has no auth key")
                .containsExactly("spec.rules[0].basicAuth.secretName: Secret \"staff\" has no \"auth\" key (htpasswd"
                        + " lines); the rule answers 503");
    }

    @Test
    void withoutAUserTheRuleAnswers503AndTheRestServes() {
        String[][] cases = {
            {null, "spec.rules[0].basicAuth.secretName: Secret \"staff\" not found; the rule answers 503"},
            {"# nobody\n", "spec.rules[0].basicAuth.secretName: Secret \"staff\" lists no user Strait can check; the rule"
                + " answers 503"},
            {"bob:abJnggxhB/yWI\n", "spec.rules[0].basicAuth.secretName: Secret \"staff\" auth line 1: user \"bob\": DES"
                + " crypt hashes are not checked"},
        };
        for (String[] c : cases) {
            Translation t = c[0] == null ? Fixtures.translate(route("shop", "site", 1, SPEC))
                    : Fixtures.translate(route("shop", "site", 1, SPEC), Fixtures.authSecret("shop", "staff", c[0]));
            ResourceReport r = Fixtures.routeReport(t, "shop", "site");
            assertThat(r.accepted().status()).as(c[1]).isTrue();
            assertThat(r.resolvedRefs().status()).isFalse();
            assertThat(r.errors()).anySatisfy(e -> assertThat(e).startsWith(c[1]));
            assertThat(rules(t).get(0).action()).as("locked: 503")
                    .isEqualTo(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
            assertThat(rules(t).get(0).basicAuth()).isNull();
            assertThat(rules(t).get(1).action()).isEqualTo(new Route.Respond(200, "public", java.util.Map.of()));
        }
    }
}
