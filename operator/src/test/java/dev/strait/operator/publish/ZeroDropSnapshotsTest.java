package dev.strait.operator.publish;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.operator.translate.Fixtures;
import dev.strait.operator.translate.Scope;
import dev.strait.operator.translate.Translator;
import dev.strait.proxy.control.Identity;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * 100 snapshots pushed over the control channel to a proxy under steady load, each changing its
 * routes: every one is ACKed and not one request fails.
 */
class ZeroDropSnapshotsTest {
    private static final Translator TRANSLATOR = new Translator(ChannelTest.LOOPBACK);

    private static String site(int generation) {
        return """
                hosts: [ "*" ]
                rules:
                  - matches: [ { path: { type: Prefix, value: /gen } } ]
                    respond: { status: 200, body: "generation %d" }
                  - respond: { status: 200, body: "ok" }
                """.formatted(generation);
    }

    private String publish(Fleet fleet, int generation) {
        List<Object> resources = new ArrayList<>();
        resources.add(route("shop", "site", 1, site(generation)));
        if (generation % 3 == 0) {
            resources.add(route("shop", "extra", 2, "hosts: [ extra.example.com ]\nrules: [ { respond: { body: x } } ]"));
        }
        var t = TRANSLATOR.translate(Fixtures.inputs(resources.toArray()));
        fleet.publish(t);
        return t.snapshot(Scope.ingress("strait")).version();
    }

    @Test
    void aHundredSnapshotsUnderLoadFailNoRequest() throws Exception {
        Fleet fleet = new Fleet(ChannelTest.LOOPBACK);
        try (ControlServer server = new ControlServer(fleet, null, Authenticator.OPEN)
                .start(new InetSocketAddress("127.0.0.1", 0))) {
            publish(fleet, 0);
            try (TestProxy proxy = TestProxy.start(server.address(), Identity.ingress("strait"), null)) {
                InetSocketAddress http = proxy.server.address("http");
                AtomicBoolean running = new AtomicBoolean(true);
                AtomicInteger ok = new AtomicInteger();
                // Which snapshot was last published when a request failed: a failure's message says, so that a rare
                // one (seen once in CI) can be told apart from a swap's doing.
                AtomicInteger generation = new AtomicInteger();
                ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
                List<Thread> clients = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    Thread t = new Thread(() -> load(http, running, ok, failures, generation));
                    t.start();
                    clients.add(t);
                }
                String last = null;
                for (int g = 1; g <= 100; g++) {
                    generation.set(g);
                    last = publish(fleet, g);
                    String version = last;
                    await().atMost(Duration.ofSeconds(30)).until(() -> version.equals(proxy.version()));
                }
                String finalVersion = last;
                await().atMost(Duration.ofSeconds(30)).until(() -> finalVersion.equals(fleet.proxies().get(0).acked()));
                running.set(false);
                for (Thread t : clients) {
                    t.join(10_000);
                }
                assertThat(failures).isEmpty();
                assertThat(ok.get()).isGreaterThan(100);
                assertThat(proxy.client.rejected()).isZero();
                assertThat(proxy.get("example.com", "/gen")).isEqualTo("200 OK generation 100");
            }
        }
    }

    private static String where(int publishedBefore, AtomicInteger generation, long startedNanos) {
        return " (sent after generation " + publishedBefore + ", failed after generation "
                + generation.get() + ", " + (System.nanoTime() - startedNanos) / 1_000_000 + " ms after it was sent)";
    }

    /** Keep-alive requests (the JDK client pools connections) until told to stop; bounded by the test. */
    private static void load(InetSocketAddress http, AtomicBoolean running, AtomicInteger ok,
                             ConcurrentLinkedQueue<String> failures, AtomicInteger generation) {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI uri = URI.create("http://127.0.0.1:" + http.getPort() + "/gen");
        for (int n = 0; running.get() && n < 100_000; n++) {
            long started = System.nanoTime();
            int publishedBefore = generation.get();
            try {
                // A request that hangs is a failure, but a machine busy with parallel builds can hold one for
                // seconds (a 5 s limit failed so once): 30 s tells a hang from a wait.
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && r.body().startsWith("generation ")) {
                    ok.incrementAndGet();
                } else {
                    failures.add(r.statusCode() + " " + r.body() + where(publishedBefore, generation, started));
                }
            } catch (Exception e) {
                failures.add(e + where(publishedBefore, generation, started));
            }
        }
    }
}
