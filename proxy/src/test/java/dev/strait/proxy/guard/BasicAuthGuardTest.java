package dev.strait.proxy.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
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

    /** A bcrypt hash made by another implementation (Bouncy Castle's), at {@code cost}. */
    static String bcrypt(String password, int cost) {
        return OpenBSDBCrypt.generate("2y", password.toCharArray(), "sixteen bytes!!!".getBytes(StandardCharsets.US_ASCII),
                cost);
    }

    @Test
    void aSlowHashIsWorkedOutOffTheLoopAndRemembered() throws Exception {
        BasicAuthGuard slow = BasicAuthGuard.of(new Route.BasicAuth("Staff", "carol:" + bcrypt("s3cret", 5)
                + "\ndave:$6$saltsalt$" + "x".repeat(86) + "\n" + HTPASSWD));
        assertThat(slow.check(basic("carol:s3cret"))).isEqualTo(BasicAuthGuard.Verdict.SLOW);
        assertThat(slow.check(basic("dave:x"))).as("SHA-crypt is slow too").isEqualTo(BasicAuthGuard.Verdict.SLOW);
        assertThat(slow.check(basic("alice:pa ss:wörd"))).as("apr1 is not").isEqualTo(BasicAuthGuard.Verdict.ADMIT);

        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        List<BasicAuthGuard.Verdict> verdicts = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        // The "loop": a task given to it runs at once, on the hashing thread that hands it over.
        java.util.concurrent.Executor loop = task -> {
            ranOn.add(Thread.currentThread());
            task.run();
        };
        assertThat(slow.hashOffLoop(basic("carol:wrong"), loop, v -> { verdicts.add(v); done.countDown(); })).isTrue();
        assertThat(slow.hashOffLoop(basic("carol:s3cret"), loop, v -> { verdicts.add(v); done.countDown(); })).isTrue();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(verdicts).containsExactly(BasicAuthGuard.Verdict.CHALLENGE, BasicAuthGuard.Verdict.ADMIT);
        assertThat(ranOn).allSatisfy(t -> assertThat(t.getName()).startsWith("strait-hashing-"));
        assertThat(slow.check(basic("carol:s3cret"))).as("proven: no hash again").isEqualTo(BasicAuthGuard.Verdict.ADMIT);
    }

    /** One rule's guesses cannot fill the hashing threads: past 32 waiting, the next is refused at once. */
    @Test
    void aRuleHasAtMostSoManyHashesWaiting() throws Exception {
        BasicAuthGuard slow = BasicAuthGuard.of(new Route.BasicAuth("Staff", "carol:" + bcrypt("s3cret", 9)));
        CountDownLatch done = new CountDownLatch(BasicAuthGuard.WAITING);
        for (int i = 0; i < BasicAuthGuard.WAITING; i++) {
            assertThat(slow.hashOffLoop(basic("carol:guess" + i), Runnable::run, v -> done.countDown())).isTrue();
        }
        assertThat(slow.hashOffLoop(basic("carol:one too many"), Runnable::run, v -> { })).isFalse();
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(slow.hashOffLoop(basic("carol:again"), Runnable::run, v -> { })).as("room again").isTrue();
    }
}
