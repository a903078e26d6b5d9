package dev.strait.proxy.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The Basic credentials check on its own: what is admitted, challenged, and rationed. */
class BasicAuthGuardTest {
    private static final String HTPASSWD = """
            # staff
            alice:$apr1$sAlT1234$zyQo.9jXkwfQG39OatMyL0
            bob:{SHA}kniYfDOveJALlwGbJH1veyGzBwU=
            """;
    private final BasicAuthGuard guard = BasicAuthGuard.of(new Route.BasicAuth("Staff", HTPASSWD));

    private static String basic(String userPass) {
        return "Basic " + Base64.getEncoder().encodeToString(userPass.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theUsersWithTheirPasswordsAreAdmittedAndNothingElse() {
        assertThat(guard.check(basic("alice:pa ss:wörd"))).isEqualTo(BasicAuthGuard.Verdict.ADMIT);
        assertThat(guard.check(basic("bob:pa ss:wörd"))).isEqualTo(BasicAuthGuard.Verdict.ADMIT);
        assertThat(guard.check("bAsIc " + basic("bob:pa ss:wörd").substring(6))).as("the scheme in any case")
                .isEqualTo(BasicAuthGuard.Verdict.ADMIT);
        for (String wrong : new String[] {null, "", "Basic", "Basic ", "Bearer abc", basic("alice:pa ss:word"),
                basic("carol:pa ss:wörd"), basic("alice"), "Basic !!!notbase64", basic(":pa ss:wörd")}) {
            assertThat(guard.check(wrong)).as(String.valueOf(wrong)).isEqualTo(BasicAuthGuard.Verdict.CHALLENGE);
        }
        assertThat(guard.challenge()).isEqualTo("Basic realm=\"Staff\", charset=\"UTF-8\"");
    }

    @Test
    void hashWorkForUnprovenCredentialsIsRationedButProvenOnesPass() {
        long second = 1_000_000;
        assertThat(guard.check(basic("alice:pa ss:wörd"), second)).isEqualTo(BasicAuthGuard.Verdict.ADMIT);
        assertThat(guard.spentMicros(second)).as("the apr1 check was counted").isPositive();
        assertThat(guard.check(basic("carol:x"), second)).isEqualTo(BasicAuthGuard.Verdict.CHALLENGE);
        long before = guard.spentMicros(second);
        assertThat(guard.check(basic("carol:y"), second)).isEqualTo(BasicAuthGuard.Verdict.CHALLENGE);
        assertThat(guard.spentMicros(second)).as("no such user: nothing worked out").isEqualTo(before);
        guard.spend(second, BasicAuthGuard.BUDGET_MICROS); // as if a guesser had used this second's time
        assertThat(guard.check(basic("alice:guess"), second)).isEqualTo(BasicAuthGuard.Verdict.BUSY);
        assertThat(guard.check(basic("bob:pa ss:wörd"), second)).as("not proven yet: rationed too")
                .isEqualTo(BasicAuthGuard.Verdict.BUSY);
        assertThat(guard.check(basic("alice:pa ss:wörd"), second)).as("proven: no hash to work out")
                .isEqualTo(BasicAuthGuard.Verdict.ADMIT);
        assertThat(guard.check(basic("bob:pa ss:wörd"), second + 1)).as("the next second").isEqualTo(BasicAuthGuard.Verdict.ADMIT);
    }
}
