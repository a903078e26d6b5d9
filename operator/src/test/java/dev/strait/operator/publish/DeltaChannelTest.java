package dev.strait.operator.publish;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.model.ConfigParser;
import dev.strait.operator.translate.Fixtures;
import dev.strait.operator.translate.Scope;
import dev.strait.operator.translate.Translator;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.control.Identity;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Deltas on the control channel (issue 5: "updates after the first may be deltas; either way a
 * reconnecting proxy converges to the latest version"): the real proxy against the real control server.
 */
class DeltaChannelTest {
    private static final Scope STRAIT = Scope.ingress("strait");
    private final Translator translator = new Translator(ChannelTest.LOOPBACK);
    private final List<AutoCloseable> closeAfter = new ArrayList<>();
    private Fleet fleet;
    private ControlServer server;

    @BeforeEach
    void startOperator() throws Exception {
        fleet = new Fleet(ChannelTest.LOOPBACK);
        server = new ControlServer(fleet, null, Authenticator.OPEN).start(new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void stopAll() throws Exception {
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
        server.close();
    }

    private TestProxy proxy() throws Exception {
        TestProxy p = TestProxy.start(server.address(), Identity.ingress("strait"), null);
        closeAfter.add(0, p);
        return p;
    }

    /** Ten Routes, so that changing one is a small part of the snapshot; {@code site} answers {@code body}. */
    private String publish(String body, String... extra) {
        List<Object> resources = new ArrayList<>();
        resources.add(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules: [ { matches: [ { path: { type: Exact, value: /hello } } ], respond: { status: 200, body: "%s" } } ]
                """.formatted(body)));
        for (int i = 0; i < 9; i++) {
            resources.add(route("shop", "other-" + i, 2 + i, "hosts: [ other" + i + ".example.com ]\n"
                    + "rules: [ { respond: { status: 200, body: \"other " + i + "\" } } ]"));
        }
        for (int i = 0; i < extra.length; i++) {
            resources.add(route("shop", "extra-" + i, 20 + i, extra[i]));
        }
        fleet.publish(translator.translate(Fixtures.inputs(resources.toArray())));
        return fleet.latestVersion(STRAIT);
    }

    private void awaitAcked(String version) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(fleet.proxies())
                .singleElement().extracting(ProxyState::acked).isEqualTo(version));
    }

    @Test
    void anUpdateAfterTheFirstIsADeltaAndIsAcked() throws Exception {
        String v1 = publish("one");
        TestProxy proxy = proxy();
        awaitAcked(v1);
        String v2 = publish("two");
        awaitAcked(v2);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK two");
        assertThat(proxy.version()).isEqualTo(v2);
        assertThat(proxy.client.deltas()).isEqualTo(1);
        assertThat(fleet.snapshotsSent()).as("only the first was whole").isEqualTo(1);
        assertThat(fleet.deltasSent()).isEqualTo(1);

        String v3 = publish("three", "hosts: [ new.example.com ]\nrules: [ { respond: { status: 201 } } ]");
        awaitAcked(v3);
        assertThat(proxy.get("new.example.com", "/")).startsWith("201 ");
        String v4 = publish("three");
        awaitAcked(v4);
        assertThat(proxy.get("new.example.com", "/")).as("removed by a delta").startsWith("404 ");
        assertThat(proxy.client.deltas()).isEqualTo(3);
        assertThat(fleet.snapshotsSent()).isEqualTo(1);
    }

    @Test
    void aDeltaOnAnotherBaseIsRefusedAndTheWholeSnapshotFollows() throws Exception {
        String v1 = publish("one");
        TestProxy proxy = proxy();
        awaitAcked(v1);
        // The proxy's table changes behind the operator's back, so the next delta's base is not what it serves.
        proxy.serving.swap(SnapshotBuilder.build(ConfigParser.parse("""
                listeners: [ { name: http, address: 127.0.0.1:0 } ]
                routes: [ { name: elsewhere, hosts: [ "*" ], rules: [ { respond: { status: 418 } } ] } ]
                """, "test"), "test"));
        String v2 = publish("two");
        awaitAcked(v2);
        assertThat(proxy.client.resyncs()).isEqualTo(1);
        assertThat(proxy.client.deltas()).isZero();
        assertThat(fleet.snapshotsSent()).as("the first, and the whole one after the refused delta").isEqualTo(2);
        assertThat(fleet.proxies().get(0).nacked()).as("a resync is not a refusal of the config").isNull();
        assertThat(proxy.version()).isEqualTo(v2);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK two");
    }

    @Test
    void aReconnectingProxyStartsWithAWholeSnapshotAndConverges() throws Exception {
        String v1 = publish("one");
        TestProxy proxy = proxy();
        awaitAcked(v1);
        publish("two");
        InetSocketAddress address = server.address();
        server.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> !proxy.client.connected());

        fleet = new Fleet(ChannelTest.LOOPBACK);
        server = new ControlServer(fleet, null, Authenticator.OPEN).start(address);
        String v3 = publish("three");
        awaitAcked(v3);
        assertThat(fleet.snapshotsSent()).as("a new connection starts whole").isEqualTo(1);
        assertThat(fleet.deltasSent()).isZero();
        String v4 = publish("four");
        awaitAcked(v4);
        assertThat(fleet.deltasSent()).as("then deltas again").isEqualTo(1);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK four");
    }

    @Test
    void aDeltaThatMakesTheConfigInvalidIsNackedAndTheOldTableKeepsServing() throws Exception {
        String v1 = publish("one");
        TestProxy proxy = proxy();
        awaitAcked(v1);
        String bad = publish("one", "hosts: [ files.example.com ]\nrules: [ { files: { root: /no/such/dir } } ]");
        await().atMost(Duration.ofSeconds(10)).until(() -> bad.equals(fleet.proxies().get(0).nacked()));
        assertThat(fleet.deltasSent()).isEqualTo(1);
        assertThat(fleet.proxies().get(0).nackError()).contains("routes[10].rules[0].files").contains("/no/such/dir");
        assertThat(proxy.version()).isEqualTo(v1);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK one");
        assertThat(proxy.client.rejected()).isEqualTo(1);

        String v3 = publish("three");
        awaitAcked(v3);
        assertThat(fleet.deltasSent()).as("the next delta is built on what it still serves").isEqualTo(2);
        assertThat(fleet.snapshotsSent()).isEqualTo(1);
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK three");
    }

    @Test
    void aProxyThatDoesNotAnnounceDeltasGetsWholeSnapshots() throws Exception {
        String v1 = publish("one");
        try (Socket s = new Socket()) {
            s.connect(server.address(), 2000);
            s.setSoTimeout(5000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(s.getInputStream());
            write(out, "{\"type\":\"hello\",\"protocol\":1,\"node\":{\"ingressClass\":\"strait\"}}");
            JsonNode first = read(in);
            assertThat(first.path("type").asText()).isEqualTo("snapshot");
            assertThat(first.path("version").asText()).isEqualTo(v1);
            write(out, "{\"type\":\"ack\",\"version\":\"" + v1 + "\"}");
            awaitAcked(v1);
            String v2 = publish("two");
            JsonNode second = read(in);
            assertThat(second.path("type").asText()).isEqualTo("snapshot");
            assertThat(second.path("version").asText()).isEqualTo(v2);
        }
        assertThat(fleet.deltasSent()).isZero();
    }

    @Test
    void aProxyIsSentNothingUntilItAnswersAndAForgottenBaseMeansAWholeSnapshot() throws Exception {
        String v1 = publish("one");
        try (Socket s = new Socket()) {
            s.connect(server.address(), 2000);
            s.setSoTimeout(5000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(s.getInputStream());
            write(out, "{\"type\":\"hello\",\"protocol\":1,\"node\":{\"ingressClass\":\"strait\"},\"features\":[\"delta\"]}");
            assertThat(read(in).path("type").asText()).isEqualTo("snapshot");
            write(out, "{\"type\":\"ack\",\"version\":\"" + v1 + "\"}");
            await().atMost(Duration.ofSeconds(10)).until(() -> v1.equals(fleet.proxies().get(0).acked()));
            String v2 = publish("two");
            JsonNode delta = read(in);
            assertThat(delta.path("type").asText()).isEqualTo("delta");
            assertThat(delta.path("base").asText()).isEqualTo(v1);
            assertThat(delta.path("version").asText()).isEqualTo(v2);

            // Unanswered, it is sent nothing while a real proxy takes five more versions, one delta each.
            TestProxy other = proxy();
            String last = null;
            for (int i = 3; i <= 7; i++) {
                String v = publish("v" + i);
                await().atMost(Duration.ofSeconds(10)).until(() -> v.equals(other.version()));
                last = v;
            }
            // Its answer names a base the operator no longer keeps (4 documents per scope): the latest, whole.
            write(out, "{\"type\":\"ack\",\"version\":\"" + v2 + "\"}");
            JsonNode next = read(in);
            assertThat(next.path("type").asText()).isEqualTo("snapshot");
            assertThat(next.path("version").asText()).isEqualTo(last);
        }
    }

    private static void write(DataOutputStream out, String message) throws IOException {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
        out.flush();
    }

    private static JsonNode read(DataInputStream in) throws IOException {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return Messages.parse(frame);
    }
}
