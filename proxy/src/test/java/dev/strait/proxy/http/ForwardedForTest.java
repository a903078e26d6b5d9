package dev.strait.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.model.Config;
import dev.strait.model.IpBlock;
import dev.strait.proxy.testing.CapturedAccessLog;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestServing;
import dev.strait.proxy.testing.TestUpstream;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client behind a trusted load balancer (ADR 0059): {@link ForwardedFor} on its own, then on a real proxy
 * whose peer is always 127.0.0.1, trusted or not, where the access log's {@code remote} and hashing on the
 * client's address must see the client the balancer named, and the upstream the list as it came.
 */
class ForwardedForTest {
    private static final SocketAddress BALANCER = new InetSocketAddress("10.0.0.5", 40000);
    private static final Config.ForwardedHeaders TRUST_10 = trust("10.0.0.0/8");

    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static Config.ForwardedHeaders trust(String... blocks) {
        return new Config.ForwardedHeaders(java.util.Arrays.stream(blocks).map(IpBlock::parse).toList());
    }

    private static String client(Config.ForwardedHeaders trust, SocketAddress peer, String... xff) {
        HttpHeaders headers = new DefaultHttpHeaders();
        for (String line : xff) {
            headers.add("X-Forwarded-For", line);
        }
        SocketAddress c = ForwardedFor.client(headers, peer, trust);
        return c == peer ? "peer" : ((InetSocketAddress) c).getAddress().getHostAddress() + ":" + ((InetSocketAddress) c).getPort();
    }

    @Test
    void theRightMostAddressNoTrustedProxyAppendedIsTheClient() {
        assertThat(client(TRUST_10, BALANCER, "203.0.113.9")).isEqualTo("203.0.113.9:0");
        // What the client wrote itself (the left part) proves nothing; the balancer appended its own peer.
        assertThat(client(TRUST_10, BALANCER, "1.2.3.4, 203.0.113.9")).isEqualTo("203.0.113.9:0");
        // Trusted hops to the right are walked past, across field lines too.
        assertThat(client(TRUST_10, BALANCER, "1.2.3.4, 203.0.113.9, 10.1.1.1")).isEqualTo("203.0.113.9:0");
        assertThat(client(TRUST_10, BALANCER, "1.2.3.4, 203.0.113.9", "10.1.1.1,10.2.2.2")).isEqualTo("203.0.113.9:0");
        assertThat(client(TRUST_10, BALANCER, "203.0.113.9, , 10.1.1.1,")).isEqualTo("203.0.113.9:0");
        // Ports and brackets as some balancers write them; IPv6.
        assertThat(client(TRUST_10, BALANCER, "203.0.113.9:4711")).isEqualTo("203.0.113.9:0");
        assertThat(client(TRUST_10, BALANCER, "[2001:db8::7]:4711")).isEqualTo("2001:db8:0:0:0:0:0:7:0");
        assertThat(client(TRUST_10, BALANCER, "2001:db8::7")).isEqualTo("2001:db8:0:0:0:0:0:7:0");
        // Every address trusted: the left-most is as far as anyone can tell.
        assertThat(client(TRUST_10, BALANCER, "10.3.3.3, 10.1.1.1")).isEqualTo("10.3.3.3:0");
    }

    @Test
    void anEntryThatIsNoAddressStopsAtTheTrustedHopToItsRight() {
        assertThat(client(TRUST_10, BALANCER, "unknown")).isEqualTo("peer");
        assertThat(client(TRUST_10, BALANCER, "203.0.113.9, unknown, 10.1.1.1")).isEqualTo("10.1.1.1:0");
        for (String bad : new String[] {"example.com", "[2001:db8::7", "[2001:db8::7]x", "1.2.3", "1.2.3.4:5:6", "_hidden"}) {
            assertThat(client(TRUST_10, BALANCER, bad)).as(bad).isEqualTo("peer");
        }
    }

    @Test
    void onlyATrustedPeersListIsRead() {
        assertThat(client(TRUST_10, new InetSocketAddress("192.0.2.1", 1), "203.0.113.9")).isEqualTo("peer");
        assertThat(client(Config.ForwardedHeaders.DEFAULTS, BALANCER, "203.0.113.9")).isEqualTo("peer");
        assertThat(client(TRUST_10, BALANCER)).as("no list").isEqualTo("peer");
    }

    private static String proxied(String trustedPeers, String upstream) {
        return """
                forwardedHeaders: { trustedPeers: %s }
                upstreams: [ %s ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules: [ { backends: [ { upstream: app } ] } ]
                """.formatted(trustedPeers, upstream);
    }

    @Test
    void aTrustedPeersClientIsLoggedAndTheUpstreamGetsTheListAsItCame() throws Exception {
        TestUpstream app = h.upstream(TestUpstream.name());
        String upstream = "{ name: app, endpoints: [ \"%s\" ] }".formatted(app.endpoint());
        CapturedAccessLog log = CapturedAccessLog.start(h, proxied("[ 127.0.0.1 ]", upstream));
        assertThat(h.get("/a", "X-Forwarded-For: 1.2.3.4, 203.0.113.9", "X-Real-IP: 6.6.6.6").status()).isEqualTo(200);
        assertThat(app.last().header("x-forwarded-for")).isEqualTo("1.2.3.4, 203.0.113.9, 127.0.0.1");
        assertThat(app.last().headers().getAll("x-real-ip")).as("the trusted peer's client; the client's own dropped")
                .containsExactly("203.0.113.9");
        assertThat(h.get("/b", "X-Real-IP: 6.6.6.6").status()).as("no list: the peer").isEqualTo(200);
        assertThat(app.last().headers().getAll("x-real-ip")).containsExactly("127.0.0.1");

        h.serving.swap(TestServing.snapshot(CapturedAccessLog.full(proxied("[ 10.0.0.0/8 ]", upstream))));
        assertThat(h.get("/c", "X-Forwarded-For: 203.0.113.9").status()).isEqualTo(200);

        List<JsonNode> lines = log.await(3);
        assertThat(lines).extracting(l -> l.get("uri").asText() + " " + l.get("remote").asText())
                .containsExactly("/a 203.0.113.9", "/b 127.0.0.1", "/c 127.0.0.1");
    }

    /** Behind a balancer every connection comes from it: hashing on the peer would send everyone to one endpoint. */
    @Test
    void hashingOnTheClientAddressSeesTheClientsBehindATrustedPeer() throws Exception {
        TestUpstream[] ups = {h.upstream("u0", TestUpstream.name()), h.upstream("u1", TestUpstream.name()),
                h.upstream("u2", TestUpstream.name())};
        String upstream = "{ name: app, loadBalancer: consistent-hash, endpoints: [ \"%s\", \"%s\", \"%s\" ] }"
                .formatted(ups[0].endpoint(), ups[1].endpoint(), ups[2].endpoint());
        h.start(proxied("[ 127.0.0.1 ]", upstream));
        Map<String, String> owner = new HashMap<>();
        try (RawClient c = h.client()) {
            for (int i = 0; i < 30; i++) {
                String client = "203.0.113." + (i % 15);
                RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: " + client + "\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                String before = owner.putIfAbsent(client, r.text());
                assertThat(before == null || before.equals(r.text())).as("%s sticks to one endpoint", client).isTrue();
            }
        }
        assertThat(new HashSet<>(owner.values())).as("clients spread over the endpoints").hasSizeGreaterThanOrEqualTo(2);

        h.reload(proxied("[ 10.0.0.0/8 ]", upstream));
        Map<String, Integer> counts = new HashMap<>();
        try (RawClient c = h.client()) {
            for (int i = 0; i < 15; i++) {
                RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 203.0.113." + i + "\r\n\r\n").read();
                counts.merge(r.text(), 1, Integer::sum);
            }
        }
        assertThat(counts).as("an untrusted peer's list is not read: one address, one endpoint").hasSize(1);
    }
}
