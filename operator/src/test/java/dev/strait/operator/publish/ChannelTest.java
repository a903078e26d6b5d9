package dev.strait.operator.publish;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.model.HostPort;
import dev.strait.model.Limits;
import dev.strait.operator.translate.Fixtures;
import dev.strait.operator.translate.ProxyDefaults;
import dev.strait.operator.translate.Scope;
import dev.strait.operator.translate.Translation;
import dev.strait.operator.translate.Translator;
import dev.strait.proxy.control.Identity;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real proxy (control client, snapshot builder, HTTP server) against the real control server:
 * every wait is on an event (an ACKed version, a served answer), never a sleep.
 */
public class ChannelTest {
    /** Loopback, any port, no admin listener: several proxies share the machine. */
    public static final ProxyDefaults LOOPBACK = new ProxyDefaults("strait", "strait-sidecar", new HostPort("127.0.0.1", 0),
            null, null, Limits.DEFAULTS, false);
    private static final Translator TRANSLATOR = new Translator(LOOPBACK);
    private static final Identity INGRESS = Identity.ingress("strait");

    private final List<AutoCloseable> closeAfter = new ArrayList<>();
    private Fleet fleet;
    private ControlServer server;

    @BeforeEach
    void startOperator() throws Exception {
        fleet = new Fleet(LOOPBACK);
        server = new ControlServer(fleet, null, Authenticator.OPEN).start(new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void stopAll() throws Exception {
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
        server.close();
    }

    private TestProxy proxy(Identity id, Path stateDir) throws Exception {
        TestProxy p = TestProxy.start(server.address(), id, stateDir);
        closeAfter.add(0, p);
        return p;
    }

    private static String hello(String body) {
        return """
                hosts: [ example.com ]
                rules:
                  - matches: [ { path: { type: Exact, value: /hello } } ]
                    respond: { status: 200, body: "%s" }
                """.formatted(body);
    }

    private Translation publish(Object... resources) {
        Translation t = TRANSLATOR.translate(Fixtures.inputs(resources));
        fleet.publish(t);
        return t;
    }

    private void awaitAcked(String version, int proxies) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(fleet.proxies())
                .filteredOn(p -> version.equals(p.acked())).hasSize(proxies));
    }

    @Test
    void firstSnapshotIsServedAndAcked() throws Exception {
        String v1 = publish(route("shop", "site", 1, hello("one"))).snapshot(Scope.ingress("strait")).version();
        TestProxy proxy = proxy(INGRESS, null);
        assertThat(proxy.version()).isEqualTo(v1);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK one");
        awaitAcked(v1, 1);
        ProxyState state = fleet.proxies().get(0);
        assertThat(state.identity()).isEqualTo(new ProxyIdentity("strait", null, null));
        assertThat(state.scope()).isEqualTo(Scope.ingress("strait"));
        assertThat(state.ackedSeq()).isEqualTo(fleet.currentSeq(Scope.ingress("strait")));
    }

    @Test
    void anUpdateIsSwappedInAndAcked() throws Exception {
        publish(route("shop", "site", 1, hello("one")));
        TestProxy proxy = proxy(INGRESS, null);
        String v2 = publish(route("shop", "site", 1, hello("two"))).snapshot(Scope.ingress("strait")).version();
        awaitAcked(v2, 1);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK two");
    }

    /** Listeners are made when the proxy starts: a snapshot that changes them says a restart is pending. */
    @Test
    void aListenerChangeIsServedAsFarAsItCanAndWaitsForARestart() throws Exception {
        publish(route("shop", "site", 1, hello("one")));
        TestProxy proxy = proxy(INGRESS, null);
        assertThat(proxy.metrics.scrape()).contains("strait_config_restart_pending 0.0");
        ProxyDefaults balanced = new ProxyDefaults("strait", "strait-sidecar", new HostPort("127.0.0.1", 0), null, null,
                Limits.DEFAULTS, false, dev.strait.model.Config.ForwardedHeaders.DEFAULTS, true);
        Translation t = new Translator(balanced).translate(Fixtures.inputs(route("shop", "site", 1, hello("two"))));
        fleet.publish(t);
        awaitAcked(t.snapshot(Scope.ingress("strait")).version(), 1);
        assertThat(proxy.get("example.com", "/hello")).as("the routes apply now").isEqualTo("200 OK two");
        assertThat(proxy.metrics.scrape()).contains("strait_config_restart_pending 1.0");
    }

    @Test
    void aRefusedSnapshotIsNackedAndTheLastGoodOneKeepsServing() throws Exception {
        String v1 = publish(route("shop", "site", 1, hello("one"))).snapshot(Scope.ingress("strait")).version();
        TestProxy proxy = proxy(INGRESS, null);
        awaitAcked(v1, 1);
        String bad = publish(route("shop", "site", 1, hello("one")),
                route("shop", "files", 2, "hosts: [ files.example.com ]\nrules: [ { files: { root: /no/such/dir } } ]"))
                .snapshot(Scope.ingress("strait")).version();
        await().atMost(Duration.ofSeconds(10)).until(() -> bad.equals(fleet.proxies().get(0).nacked()));
        assertThat(fleet.proxies().get(0).nackError()).contains("routes[1].rules[0].files").contains("/no/such/dir");
        assertThat(fleet.proxies().get(0).acked()).isEqualTo(v1);
        assertThat(proxy.version()).isEqualTo(v1);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK one");
        assertThat(proxy.client.rejected()).isEqualTo(1);

        String v3 = publish(route("shop", "site", 1, hello("three"))).snapshot(Scope.ingress("strait")).version();
        awaitAcked(v3, 1);
        assertThat(fleet.proxies().get(0).nacked()).as("a later ACK clears the NACK").isNull();
    }

    @Test
    void whenTheChannelDropsTheProxyKeepsServingAndRedials() throws Exception {
        String v1 = publish(route("shop", "site", 1, hello("one"))).snapshot(Scope.ingress("strait")).version();
        TestProxy proxy = proxy(INGRESS, null);
        awaitAcked(v1, 1);
        InetSocketAddress address = server.address();
        server.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> !proxy.client.connected());
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK one");

        // The operator comes back (a restart: a new fleet) with a newer table.
        fleet = new Fleet(LOOPBACK);
        server = new ControlServer(fleet, null, Authenticator.OPEN).start(address);
        String v2 = publish(route("shop", "site", 1, hello("two"))).snapshot(Scope.ingress("strait")).version();
        awaitAcked(v2, 1);
        assertThat(proxy.client.connects()).isGreaterThanOrEqualTo(2);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK two");
    }

    @Test
    void aSlowProxySkipsVersionsItCouldNotTakeYetAndGetsTheLatest() throws Exception {
        // Every write makes the connection "slow" until it drains: the skip-and-catch-up path runs each time.
        InetSocketAddress address = server.address();
        server.close();
        server = new ControlServer(fleet, null, Authenticator.OPEN).waterMark(new io.netty.channel.WriteBufferWaterMark(1, 2))
                .start(address);
        publish(route("shop", "site", 1, hello("v0")));
        TestProxy proxy = proxy(INGRESS, null);
        String last = null;
        for (int i = 1; i <= 20; i++) {
            last = publish(route("shop", "site", 1, hello("v" + i))).snapshot(Scope.ingress("strait")).version();
        }
        awaitAcked(last, 1);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK v20");
    }

    @Test
    void aRestartServesTheKeptSnapshotBeforeTheOperatorAnswers(@TempDir Path state) throws Exception {
        String v1 = publish(route("shop", "site", 1, hello("kept"))).snapshot(Scope.ingress("strait")).version();
        try (TestProxy first = TestProxy.start(server.address(), INGRESS, state)) {
            awaitAcked(v1, 1);
        }
        InetSocketAddress address = server.address();
        server.close();

        TestProxy restarted = proxy(INGRESS, state);
        assertThat(restarted.kept).as("served from --state-dir").isNotNull();
        assertThat(restarted.version()).isEqualTo(v1);
        assertThat(restarted.get("example.com", "/hello")).isEqualTo("200 OK kept");

        fleet = new Fleet(LOOPBACK);
        server = new ControlServer(fleet, null, Authenticator.OPEN).start(address);
        String v2 = publish(route("shop", "site", 1, hello("fresh"))).snapshot(Scope.ingress("strait")).version();
        awaitAcked(v2, 1);
        assertThat(restarted.get("example.com", "/hello")).isEqualTo("200 OK fresh");
    }

    @Test
    void aProxyWaitsForTheFirstPublicationAndGetsOnlyItsScope() throws Exception {
        // Nothing published yet (caches not synced): the proxy connects and waits.
        Thread publisher = new Thread(() -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> fleet.proxies().size() == 2);
            publish(route("shop", "site", 1, hello("ingress")),
                    route("shop", "side", 2, "ingressClassName: strait-sidecar\n" + hello("sidecar")),
                    route("blog", "side", 3, "ingressClassName: strait-sidecar\n" + hello("blog")));
        });
        publisher.start();
        List<TestProxy> started = new ArrayList<>();
        Thread other = new Thread(() -> {
            try {
                started.add(proxy(INGRESS, null));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        other.start();
        TestProxy sidecar = proxy(Identity.sidecar("shop", "web-0"), null);
        other.join(10_000);
        publisher.join(10_000);
        assertThat(sidecar.get("example.com", "/hello")).isEqualTo("200 OK sidecar");
        assertThat(started.get(0).get("example.com", "/hello")).isEqualTo("200 OK ingress");
        assertThat(fleet.proxies()).extracting(ProxyState::scope).containsExactlyInAnyOrder(
                Scope.ingress("strait"), Scope.sidecar("strait-sidecar", "shop"));
    }
}
