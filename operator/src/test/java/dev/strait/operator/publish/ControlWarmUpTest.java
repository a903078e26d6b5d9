package dev.strait.operator.publish;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.operator.translate.Fixtures;
import dev.strait.operator.translate.Scope;
import dev.strait.operator.translate.Translator;
import dev.strait.proxy.control.Identity;
import dev.strait.proxy.config.Snapshot;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy's warm-up of the delta path after an accepted config (ADR 0030), with the real proxy and
 * the real control server: it swaps, answers and keeps nothing, and the next real delta applies, hashes
 * to the operator's version and is served as without it.
 */
class ControlWarmUpTest {
    private static final Scope STRAIT = Scope.ingress("strait");
    private final Translator translator = new Translator(ChannelTest.LOOPBACK);
    private Fleet fleet;
    private ControlServer server;
    private TestProxy proxy;

    @BeforeEach
    void startOperator() throws Exception {
        fleet = new Fleet(ChannelTest.LOOPBACK);
        server = new ControlServer(fleet, null, Authenticator.OPEN).start(new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void stopAll() {
        if (proxy != null) {
            proxy.close();
        }
        server.close();
    }

    /** {@code site} (the first Route with a fixed answer: the one the warm-up edits) answers {@code body}. */
    private String publish(String body) {
        List<Object> resources = new ArrayList<>();
        resources.add(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules: [ { matches: [ { path: { type: Exact, value: /hello } } ], respond: { status: 200, body: "%s" } } ]
                """.formatted(body)));
        for (int i = 0; i < 200; i++) {
            resources.add(route("shop", "other-" + i, 2 + i % 50, "hosts: [ other" + i + ".example.com ]\n"
                    + "rules: [ { respond: { status: 200, body: \"other " + i + "\" } } ]"));
        }
        fleet.publish(translator.translate(Fixtures.inputs(resources.toArray())));
        return fleet.latestVersion(STRAIT);
    }

    private void awaitAcked(String version) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(fleet.proxies())
                .singleElement().extracting(ProxyState::acked).isEqualTo(version));
    }

    @Test
    void itServesAnswersAndKeepsNothingAndTheNextDeltaIsAsWithout(@TempDir Path stateDir) throws Exception {
        String v1 = publish("one");
        proxy = TestProxy.start(server.address(), Identity.ingress("strait"), stateDir);
        awaitAcked(v1);
        await().atMost(Duration.ofSeconds(20)).until(() -> proxy.client.warmUpIterations() >= 30);
        Snapshot served = proxy.serving.snapshot();
        Path kept = stateDir.resolve(Files.list(stateDir).findFirst().orElseThrow().getFileName());
        byte[] keptBytes = Files.readAllBytes(kept);

        Thread.sleep(200); // anything it would have sent or swapped would be here by now
        assertThat(proxy.serving.snapshot()).as("the table served").isSameAs(served);
        assertThat(proxy.version()).isEqualTo(v1);
        assertThat(proxy.client.accepted()).as("configs accepted (each one ACKed)").isEqualTo(1);
        assertThat(proxy.client.rejected()).isZero();
        assertThat(proxy.client.resyncs()).isZero();
        assertThat(fleet.proxies().get(0).nacked()).isNull();
        assertThat(Files.readAllBytes(kept)).as("the kept snapshot").isEqualTo(keptBytes);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK one");

        // The operator's next delta edits the Route the warm-up edited: it applies to the real document,
        // hashes to the operator's version (else the proxy would ask for a resync) and is served.
        String v2 = publish("two");
        awaitAcked(v2);
        assertThat(proxy.client.deltas()).isEqualTo(1);
        assertThat(proxy.client.resyncs()).isZero();
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK two");
        assertThat(proxy.get("other7.example.com", "/")).isEqualTo("200 OK other 7");
        // The parse memo still held the real document's Routes: every one the delta left alone is reused.
        List<dev.strait.model.Route> before = served.config().routes();
        List<dev.strait.model.Route> after = proxy.serving.snapshot().config().routes();
        assertThat(after).hasSameSizeAs(before);
        for (int i = 0; i < after.size(); i++) {
            if (!after.get(i).name().equals("shop.site")) {
                assertThat(after.get(i)).as(after.get(i).name()).isSameAs(before.get(i));
            }
        }
        String v3 = publish("one");
        awaitAcked(v3);
        assertThat(v3).isEqualTo(v1);
        assertThat(proxy.client.resyncs()).isZero();
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK one");
    }
}
