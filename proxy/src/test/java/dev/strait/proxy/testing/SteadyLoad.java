package dev.strait.proxy.testing;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients sending requests in a loop on keep-alive connections (a fresh one every {@code perConnection}
 * requests) until stopped, counting what succeeded and keeping a note of every failure: the load for
 * zero-drop tests. Bounded: it stops at {@link #stop()} or after {@code maxRequests} per client.
 */
public final class SteadyLoad implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger ok = new AtomicInteger();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();

    /** @param requests raw requests, sent in turn; each must be answered 200 */
    public SteadyLoad(InetSocketAddress address, int clients, int perConnection, int maxRequests, String... requests) {
        for (int i = 0; i < clients; i++) {
            Thread t = new Thread(() -> run(address, perConnection, maxRequests, requests), "steady-load-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void run(InetSocketAddress address, int perConnection, int maxRequests, String[] requests) {
        int sent = 0;
        while (running.get() && sent < maxRequests) {
            try (RawClient c = new RawClient(address)) {
                for (int i = 0; i < perConnection && running.get() && sent < maxRequests; i++, sent++) {
                    RawClient.Response r = c.send(requests[sent % requests.length]).read();
                    if (r.status() == 200) {
                        ok.incrementAndGet();
                    } else {
                        failures.add(r.statusLine() + " " + r.text());
                    }
                }
            } catch (Exception e) {
                failures.add(e.toString());
            }
        }
    }

    public int succeeded() {
        return ok.get();
    }

    public List<String> failures() {
        return List.copyOf(failures);
    }

    /** Stops the clients after their current request and waits for them. */
    public void stop() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(10_000);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
