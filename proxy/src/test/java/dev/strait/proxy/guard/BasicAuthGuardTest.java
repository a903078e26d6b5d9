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
        long now = System.nanoTime();
        assertThat(guard.check(basic("alice:pa ss:wörd"), now)).isEqualTo(BasicAuthGuard.Verdict.ADMIT);
        assertThat(guard.busy(now)).isFalse();
        // As if a guesser had had half a second of hashing just now: over the burst.
        guard.spend(now, BasicAuthGuard.BURST_NANOS / BasicAuthGuard.DUTY + 1);
        assertThat(guard.check(basic("alice:guess"), now)).isEqualTo(BasicAuthGuard.Verdict.BUSY);
        assertThat(guard.check(basic("bob:pa ss:wörd"), now)).as("not proven yet: rationed too")
                .isEqualTo(BasicAuthGuard.Verdict.BUSY);
        assertThat(guard.check(basic("alice:pa ss:wörd"), now)).as("proven: no hash to work out")
                .isEqualTo(BasicAuthGuard.Verdict.ADMIT);
        assertThat(guard.check(basic("carol:x"), now)).as("no such user: no hash either")
                .isEqualTo(BasicAuthGuard.Verdict.CHALLENGE);
        // Paid off at 20 times the time spent: 10 s for the half second, less the burst it may run ahead.
        assertThat(guard.check(basic("bob:pa ss:wörd"), now + 1_000_000_000L)).as("a second later")
                .isEqualTo(BasicAuthGuard.Verdict.ADMIT);
    }
}
