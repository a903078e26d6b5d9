package dev.strait.proxy.tls.ocsp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestOcspResponder;
import dev.strait.proxy.testing.TestOcspResponder.Answer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client-certificate OCSP checker (ADR 0106) against a real responder on a socket: what each answer comes to,
 * how long it is kept, and that handshakes wanting the same certificate's status share one question.
 */
class ClientOcspTest {
    TestCertificates ca;
    TestOcspResponder responder;
    ClientOcsp checker;

    @BeforeEach
    void start() throws Exception {
        ca = new TestCertificates();
        responder = new TestOcspResponder(ca);
    }

    @AfterEach
    void stop() {
        if (checker != null) {
            checker.close();
        }
        responder.close();
    }

    private ClientOcsp checker(Duration longest, Duration afterFailure) {
        checker = new ClientOcsp(new ClientOcsp.Timing(Duration.ofSeconds(2), longest, Duration.ofMillis(300),
                afterFailure));
        return checker;
    }

    private List<ClientOcsp.Query> about(TestCertificates.Issued client) {
        return List.of(new ClientOcsp.Query(client.certificate(), ca.ca()));
    }

    private static String verdict(CompletableFuture<String> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void eachAnswerComesToItsVerdict() throws Exception {
        ClientOcsp c = checker(Duration.ofHours(1), Duration.ofHours(1));
        Object[][] cases = {
                {Answer.GOOD, null},
                {Answer.DELEGATED, null},
                {Answer.REVOKED, ClientOcsp.REVOKED},
                {Answer.UNKNOWN, ClientOcsp.UNKNOWN},
                {Answer.WRONG_SIGNER, ClientOcsp.FAILED},
                {Answer.DELEGATED_WITHOUT_EKU, ClientOcsp.FAILED},
                {Answer.EXPIRED, ClientOcsp.FAILED},
                {Answer.TRY_LATER, ClientOcsp.FAILED},
                {Answer.HTTP_500, ClientOcsp.FAILED},
                {Answer.GARBAGE, ClientOcsp.FAILED},
        };
        for (Object[] k : cases) {
            responder.answer = (Answer) k[0];
            TestCertificates.Issued client = ca.issueWithOcsp(responder.uri(), "client " + k[0]);
            assertThat(verdict(c.check(about(client), null))).as(k[0].toString()).isEqualTo(k[1]);
        }
        assertThat(c.goodAnswers()).isEqualTo(2);
        assertThat(c.revokedAnswers()).isEqualTo(1);
        assertThat(c.unknownAnswers()).isEqualTo(1);
        assertThat(c.failedQuestions()).isEqualTo(6);
    }

    @Test
    void aGoodAnswerIsKeptUntilItsNextUpdateAndNoLonger() throws Exception {
        ClientOcsp c = checker(Duration.ofHours(1), Duration.ofHours(1));
        // thisUpdate is a minute back: valid for 61 s, the answer holds about a second.
        responder.validity = Duration.ofSeconds(61);
        TestCertificates.Issued client = ca.issueWithOcsp(responder.uri(), "alice");
        assertThat(verdict(c.check(about(client), null))).isNull();
        assertThat(verdict(c.check(about(client), null))).isNull();
        assertThat(responder.requests.get()).isEqualTo(1);
        assertThat(c.keptVerdicts()).isEqualTo(1);
        responder.answer = Answer.REVOKED;
        await().atMost(Duration.ofSeconds(10)).until(() -> ClientOcsp.REVOKED.equals(verdict(c.check(about(client), null))));
        assertThat(responder.requests.get()).isEqualTo(2);
    }

    @Test
    void anAnswerIsKeptNoLongerThanTheLongestAndOneWithoutNextUpdateBriefly() throws Exception {
        ClientOcsp c = checker(Duration.ofMillis(300), Duration.ofHours(1));
        TestCertificates.Issued client = ca.issueWithOcsp(responder.uri(), "alice");
        assertThat(verdict(c.check(about(client), null))).isNull();
        await().atMost(Duration.ofSeconds(10)).until(() -> verdict(c.check(about(client), null)) == null
                && responder.requests.get() >= 2);

        ClientOcsp d = new ClientOcsp(new ClientOcsp.Timing(Duration.ofSeconds(2), Duration.ofHours(1),
                Duration.ofMillis(300), Duration.ofHours(1)));
        try {
            responder.validity = null;
            int before = responder.requests.get();
            assertThat(verdict(d.check(about(client), null))).isNull();
            await().atMost(Duration.ofSeconds(10)).until(() -> verdict(d.check(about(client), null)) == null
                    && responder.requests.get() >= before + 2);
        } finally {
            d.close();
        }
    }

    @Test
    void aFailureIsKeptBrieflySoADeadResponderIsNotAskedByEveryConnection() throws Exception {
        ClientOcsp c = checker(Duration.ofHours(1), Duration.ofMillis(500));
        responder.answer = Answer.HTTP_500;
        TestCertificates.Issued client = ca.issueWithOcsp(responder.uri(), "alice");
        assertThat(verdict(c.check(about(client), null))).isEqualTo(ClientOcsp.FAILED);
        assertThat(verdict(c.check(about(client), null))).isEqualTo(ClientOcsp.FAILED);
        assertThat(responder.requests.get()).isEqualTo(1);
        responder.answer = Answer.GOOD;
        await().atMost(Duration.ofSeconds(10)).until(() -> verdict(c.check(about(client), null)) == null);
        assertThat(responder.requests.get()).isEqualTo(2);
    }

    @Test
    void handshakesWantingTheSameCertificateShareOneQuestion() throws Exception {
        ClientOcsp c = checker(Duration.ofHours(1), Duration.ofHours(1));
        responder.delay = Duration.ofMillis(500);
        TestCertificates.Issued client = ca.issueWithOcsp(responder.uri(), "alice");
        CompletableFuture<String> first = c.check(about(client), null);
        CompletableFuture<String> second = c.check(about(client), null);
        assertThat(verdict(first)).isNull();
        assertThat(verdict(second)).isNull();
        assertThat(responder.requests.get()).isEqualTo(1);
    }

    @Test
    void aResponderThatDoesNotAnswerInTimeIsAFailure() throws Exception {
        checker = new ClientOcsp(new ClientOcsp.Timing(Duration.ofMillis(300), Duration.ofHours(1), Duration.ofHours(1),
                Duration.ofHours(1)));
        responder.delay = Duration.ofSeconds(3);
        TestCertificates.Issued client = ca.issueWithOcsp(responder.uri(), "alice");
        assertThat(checker.check(about(client), null).get(2, TimeUnit.SECONDS)).isEqualTo(ClientOcsp.FAILED);
    }

    @Test
    void theNamedResponderIsAskedInsteadAndACertificateWithoutOneFails() throws Exception {
        ClientOcsp c = checker(Duration.ofHours(1), Duration.ofHours(1));
        TestCertificates.Issued bare = ca.issue(TestCertificates.KeyType.EC, "dora");
        assertThat(verdict(c.check(about(bare), null))).isEqualTo(ClientOcsp.FAILED);
        assertThat(responder.requests.get()).isZero();
        assertThat(verdict(c.check(about(bare), URI.create(responder.uri())))).isNull();
        assertThat(responder.requests.get()).isEqualTo(1);
    }

    @Test
    void aChainIsGoodOnlyWhenEveryCertificateIsAndTheFirstFailureIsTold() throws Exception {
        ClientOcsp c = checker(Duration.ofHours(1), Duration.ofHours(1));
        TestOcspResponder other = new TestOcspResponder(ca);
        try {
            TestCertificates.Issued a = ca.issueWithOcsp(responder.uri(), "a");
            TestCertificates.Issued b = ca.issueWithOcsp(other.uri(), "b");
            other.answer = Answer.REVOKED;
            List<ClientOcsp.Query> both = List.of(about(a).get(0), about(b).get(0));
            assertThat(verdict(c.check(both, null))).isEqualTo(ClientOcsp.REVOKED);
            responder.answer = Answer.UNKNOWN;
            TestCertificates.Issued a2 = ca.issueWithOcsp(responder.uri(), "a2");
            assertThat(verdict(c.check(List.of(about(a2).get(0), about(b).get(0)), null))).isEqualTo(ClientOcsp.UNKNOWN);
        } finally {
            other.close();
        }
    }

    @Test
    void closingAnswersWhatWaitsAsFailed() throws Exception {
        ClientOcsp c = checker(Duration.ofHours(1), Duration.ofHours(1));
        responder.delay = Duration.ofSeconds(2);
        TestCertificates.Issued client = ca.issueWithOcsp(responder.uri(), "alice");
        CompletableFuture<String> waiting = c.check(about(client), null);
        await().atMost(Duration.ofSeconds(5)).until(() -> responder.requests.get() == 1);
        c.close();
        assertThat(waiting.get(1, TimeUnit.SECONDS)).isEqualTo(ClientOcsp.FAILED);
        assertThat(verdict(c.check(about(ca.issueWithOcsp(responder.uri(), "bob")), null))).isEqualTo(ClientOcsp.FAILED);
    }
}
