package dev.strait.proxy.tls.ocsp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestOcspResponder;
import dev.strait.proxy.testing.TestOcspResponder.Answer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The stapler's schedule against a real responder on a socket: first fetch, refresh, retries, revocation, letting go. */
class OcspStaplerTest {
    /** Seconds where production waits minutes and hours, so that each step shows within a test. */
    static final OcspStapler.Timing FAST = new OcspStapler.Timing(Duration.ofSeconds(30), Duration.ofMillis(200),
            Duration.ofMillis(100), Duration.ofMillis(400), Duration.ofSeconds(2), Duration.ofSeconds(2));

    TestCertificates pki;
    TestOcspResponder responder;
    OcspStapler stapler;
    OcspStaple staple;

    @BeforeEach
    void setUp() throws Exception {
        pki = new TestCertificates();
        responder = new TestOcspResponder(pki);
        Issued site = pki.issueWithOcsp(responder.uri(), "site.test", "site.test");
        staple = OcspStaple.of(List.of(site.certificate(), pki.ca()), List.of("site.test"));
        stapler = new OcspStapler(FAST);
    }

    @AfterEach
    void tearDown() {
        stapler.close();
        responder.close();
    }

    /** A stapler whose margin before an answer's end is 2 s: one that lives 3 s is asked about again halfway. */
    void askingTwoSecondsBeforeTheEnd() {
        stapler.close();
        stapler = new OcspStapler(new OcspStapler.Timing(FAST.refresh(), Duration.ofSeconds(2), FAST.firstRetry(),
                FAST.maxRetry(), FAST.withoutNextUpdate(), FAST.timeout()));
    }

    @Test
    void aFollowedCertificateGetsItsAnswerAtOnce() {
        assertThat(staple.response()).isNull();
        stapler.follow(List.of(staple));
        await().atMost(Duration.ofSeconds(10)).until(() -> staple.response() != null);
        assertThat(staple.response()).isEqualTo(responder.lastAnswer);
        assertThat(stapler.stapled()).isEqualTo(1);
        assertThat(stapler.unstapled()).isZero();
        assertThat(stapler.goodAnswers()).isEqualTo(1);
        assertThat(responder.requests.get()).isEqualTo(1);
        // Following it again (a reload that kept the certificate) asks nothing more.
        stapler.follow(List.of(staple));
        assertThat(responder.requests.get()).isEqualTo(1);
    }

    @Test
    void anAnswerIsRenewedBeforeItExpires() {
        // Each answer holds 2-3 s (its thisUpdate is a minute back; times are whole seconds); asked again halfway.
        askingTwoSecondsBeforeTheEnd();
        responder.validity = Duration.ofMinutes(1).plusSeconds(3);
        stapler.follow(List.of(staple));
        await().atMost(Duration.ofSeconds(15)).until(() -> responder.requests.get() >= 4);
        // Every answer was taken in turn, each before the one before had expired.
        assertThat(stapler.goodAnswers()).isGreaterThanOrEqualTo(3);
        assertThat(stapler.failedFetches()).isZero();
        assertThat(staple.response()).isNotNull();
    }

    @Test
    void failuresAreRetriedAndTheLastGoodAnswerIsStapledUntilItExpires() {
        // Asked again 1.5 s before the answer's end, so the failures come well before it.
        askingTwoSecondsBeforeTheEnd();
        responder.validity = Duration.ofMinutes(1).plusSeconds(3);
        stapler.follow(List.of(staple));
        await().atMost(Duration.ofSeconds(10)).until(() -> staple.response() != null);
        byte[] good = staple.response();
        responder.answer = Answer.HTTP_500;
        await().atMost(Duration.ofSeconds(10)).until(() -> stapler.failedFetches() >= 2);
        assertThat(staple.response()).as("still the last good one").isEqualTo(good);
        // Then it expires, and handshakes go without.
        await().atMost(Duration.ofSeconds(10)).until(() -> staple.response() == null);
        assertThat(stapler.unstapled()).isEqualTo(1);
        // The responder is back: retried within the backoff's ceiling.
        responder.answer = Answer.GOOD;
        responder.validity = Duration.ofDays(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> staple.response() != null);
        assertThat(stapler.stapled()).isEqualTo(1);
    }

    @Test
    void answersNotToStapleAreNotStapled() {
        for (Answer a : new Answer[] {Answer.WRONG_SIGNER, Answer.EXPIRED, Answer.UNKNOWN, Answer.TRY_LATER,
                Answer.GARBAGE, Answer.DELEGATED_WITHOUT_EKU}) {
            responder.answer = a;
            long failed = stapler.failedFetches();
            stapler.follow(List.of(staple));
            await().atMost(Duration.ofSeconds(10)).until(() -> stapler.failedFetches() > failed);
            assertThat(staple.response()).as(a.name()).isNull();
            stapler.follow(List.of());
        }
        responder.answer = Answer.DELEGATED;
        stapler.follow(List.of(staple));
        await().atMost(Duration.ofSeconds(10)).until(() -> staple.response() != null);
    }

    @Test
    void aRevokedCertificateLosesItsStaple() {
        stapler.follow(List.of(staple));
        await().atMost(Duration.ofSeconds(10)).until(() -> staple.response() != null);
        responder.answer = Answer.REVOKED;
        stapler.close();
        stapler = new OcspStapler(FAST); // a fresh schedule asks at once
        stapler.follow(List.of(staple));
        await().atMost(Duration.ofSeconds(10)).until(() -> stapler.revokedAnswers() == 1);
        assertThat(staple.response()).isNull();
        assertThat(stapler.unstapled()).isEqualTo(1);
    }

    /**
     * Let go and followed again while its fetch was under way (two quick reloads): one schedule goes on, not two.
     * The responder fails every time, so each schedule asks every 400 ms once backed off; two would ask twice as often.
     */
    @Test
    void followedAgainWhileFetchingKeepsOneSchedule() throws Exception {
        responder.answer = Answer.HTTP_500;
        for (int i = 0; i < 20; i++) {
            stapler.follow(List.of(staple));
            stapler.follow(List.of());
        }
        stapler.follow(List.of(staple));
        Thread.sleep(2000); // backed off to the 400 ms ceiling
        int before = responder.requests.get();
        Thread.sleep(2000);
        int asked = responder.requests.get() - before;
        assertThat(asked).as("about 5 in 2 s at one every 400 ms").isBetween(3, 7);
    }

    @Test
    void aCertificateNoLongerServedIsNoLongerAskedAbout() throws Exception {
        responder.answer = Answer.HTTP_500; // retried every 100-400 ms while followed
        stapler.follow(List.of(staple));
        await().atMost(Duration.ofSeconds(10)).until(() -> responder.requests.get() >= 3);
        stapler.follow(List.of());
        Thread.sleep(100); // a fetch already under way may still land
        int asked = responder.requests.get();
        Thread.sleep(1500); // several retry periods
        assertThat(responder.requests.get()).isEqualTo(asked);
        assertThat(stapler.stapled() + stapler.unstapled()).isZero();
    }
}
