package dev.strait.proxy.fastcgi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pools on two real event loops against an application that only accepts: the queue, the budget
 * shared by the loops, connections handed from a loop that holds them to one whose requests wait, and
 * the idle timeout.
 */
class FastCgiPoolTest {
    private MultiThreadIoEventLoopGroup group;
    private EventLoop loopA;
    private EventLoop loopB;
    private FakeFastCgi app;
    private InetSocketAddress address;

    /** Records what the pool gives it. */
    private static final class Waiter implements FastCgiPool.Waiter {
        final String name;
        final List<String> events;
        volatile FastCgiConnection connection;

        Waiter(String name, List<String> events) {
            this.name = name;
            this.events = events;
        }

        @Override
        public void onConnection(FastCgiConnection c, boolean reused) {
            connection = c;
            events.add(name + (reused ? " reused" : " new"));
        }

        @Override
        public void onConnectFailure(Throwable cause) {
            events.add(name + " failed");
        }

        @Override
        public void onQueueFull() {
            events.add(name + " full");
        }

        @Override
        public int connectTimeoutMillis() {
            return 2000;
        }
    }

    private final List<String> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        loopA = group.next();
        loopB = group.next();
        assertThat(loopA).isNotSameAs(loopB);
        app = new FakeFastCgi((r, out, s) -> FakeFastCgi.respond(out, "\r\n"));
        address = new InetSocketAddress("127.0.0.1", app.port());
    }

    @AfterEach
    void stop() throws Exception {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        app.close();
    }

    private static <T> T on(EventLoop loop, Callable<T> task) throws Exception {
        return loop.submit(task).get(5, TimeUnit.SECONDS);
    }

    private FastCgiPool pool(EventLoop loop, int max) throws Exception {
        return on(loop, () -> FastCgiPools.pool(loop, address, max));
    }

    private void acquire(FastCgiPool pool, Waiter w) throws Exception {
        on(pool.loop, () -> {
            pool.acquire(w);
            return null;
        });
    }

    private void release(FastCgiPool pool, Waiter w) throws Exception {
        on(pool.loop, () -> {
            pool.release(w.connection);
            return null;
        });
    }

    @Test
    void waitingRequestsGetReleasedConnectionsInOrder() throws Exception {
        FastCgiPool a = pool(loopA, 1);
        Waiter w1 = new Waiter("w1", events);
        Waiter w2 = new Waiter("w2", events);
        Waiter w3 = new Waiter("w3", events);
        acquire(a, w1);
        acquire(a, w2);
        acquire(a, w3);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("w1 new"));
        assertThat(on(loopA, a::waitingRequests)).isEqualTo(2);
        release(a, w1);
        release(a, w2);
        assertThat(events).containsExactly("w1 new", "w2 reused", "w3 reused");
        assertThat(w3.connection).isSameAs(w1.connection);
        assertThat(app.accepted.get()).isEqualTo(1);
    }

    @Test
    void aCancelledWaiterIsSkipped() throws Exception {
        FastCgiPool a = pool(loopA, 1);
        Waiter w1 = new Waiter("w1", events);
        Waiter w2 = new Waiter("w2", events);
        Waiter w3 = new Waiter("w3", events);
        acquire(a, w1);
        acquire(a, w2);
        acquire(a, w3);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("w1 new"));
        on(loopA, () -> {
            a.cancel(w2);
            return null;
        });
        release(a, w1);
        assertThat(events).containsExactly("w1 new", "w3 reused");
    }

    @Test
    void aLoopWhoseRequestsWaitGetsTheIdleConnectionOfAnother() throws Exception {
        FastCgiPool a = pool(loopA, 1);
        FastCgiPool b = pool(loopB, 1);
        Waiter wa = new Waiter("a", events);
        acquire(a, wa);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("a new"));
        release(a, wa); // idle on loop A, holding the only place
        assertThat(on(loopA, a::idleConnections)).isEqualTo(1);
        Waiter wb = new Waiter("b", events);
        acquire(b, wb);
        // B asks A to give up its idle connection, then opens its own.
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("b new"));
        assertThat(on(loopA, a::openConnections)).isZero();
        assertThat(on(loopB, b::openConnections)).isEqualTo(1);
        assertThat(FastCgiPools.openConnections(address)).isEqualTo(1);
    }

    @Test
    void aBusyLoopHandsItsConnectionOverWhenAnotherHasNone() throws Exception {
        FastCgiPool a = pool(loopA, 1);
        FastCgiPool b = pool(loopB, 1);
        Waiter a1 = new Waiter("a1", events);
        Waiter a2 = new Waiter("a2", events);
        acquire(a, a1);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("a1 new"));
        Waiter b1 = new Waiter("b1", events);
        acquire(b, b1);
        acquire(a, a2);
        // Both loops have a waiting request; B has no connection, so A's next release goes to B.
        release(a, a1);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("b1 new"));
        release(b, b1);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("a2 new"));
        assertThat(events).containsExactly("a1 new", "b1 new", "a2 new");
    }

    @Test
    void idleConnectionsCloseAfterTheIdleTimeout() throws Exception {
        FastCgiPool a = pool(loopA, 2);
        a.idleTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(100);
        Waiter w = new Waiter("w", events);
        acquire(a, w);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("w new"));
        release(a, w);
        assertThat(FastCgiPools.openConnections(address)).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> FastCgiPools.openConnections(address) == 0);
        assertThat(on(loopA, a::idleConnections)).isZero();
    }

    @Test
    void aClosedConnectionFreesItsPlaceForAWaitingRequest() throws Exception {
        FastCgiPool a = pool(loopA, 1);
        Waiter w1 = new Waiter("w1", events);
        Waiter w2 = new Waiter("w2", events);
        acquire(a, w1);
        acquire(a, w2);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("w1 new"));
        w1.connection.channel.close(); // an error: not released, closed
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("w2 new"));
        assertThat(app.accepted.get()).isEqualTo(2);
    }

    @Test
    void refusedConnectsAreReported() throws Exception {
        app.close();
        FastCgiPool a = pool(loopA, 1);
        Waiter w1 = new Waiter("w1", events);
        Waiter w2 = new Waiter("w2", events);
        acquire(a, w1);
        acquire(a, w2);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.size() == 2);
        assertThat(events).containsExactly("w1 failed", "w2 failed");
        assertThat(FastCgiPools.openConnections(address)).isZero();
    }
}
