package dev.strait.proxy.cache;

import dev.strait.proxy.http.Exchange;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A fetch in flight for one key and the requests waiting for it (coalescing). Joining and completing
 * take this object's lock, held for a list add; each waiter is woken on its own event loop, where its
 * connection lives, and gives up waiting after the rule's {@code lockTimeout} (then it goes upstream
 * itself).
 */
final class Pending {
    /** What the fetch left for its waiters. */
    record Outcome(int kind, Entry entry) {
        /** Answer from {@code entry}. */
        static final int SERVE = 0;
        /** Look the key up again (a Vary'd entry may not be the waiter's variant). */
        static final int LOOKUP = 1;
        /** Go upstream, around the cache: the fetch failed or the answer could not be stored. */
        static final int UPSTREAM = 2;

        static final Outcome LOOK_AGAIN = new Outcome(LOOKUP, null);
        static final Outcome GO_UPSTREAM = new Outcome(UPSTREAM, null);
    }

    private List<Waiter> waiters = new ArrayList<>(4);
    private Outcome outcome;

    /** Waits for this fetch; {@code false} when it already ended (look again). Runs on {@code ex}'s loop. */
    boolean join(ResponseCache cache, Exchange ex, CachePolicy p, Origin origin, String key) {
        Waiter w = new Waiter(cache, ex, p, origin, key);
        synchronized (this) {
            if (outcome != null) {
                return false;
            }
            waiters.add(w);
        }
        w.arm();
        return true;
    }

    void complete(Outcome o) {
        List<Waiter> ws;
        synchronized (this) {
            if (outcome != null) {
                return;
            }
            outcome = o;
            ws = waiters;
            waiters = null;
        }
        for (Waiter w : ws) {
            w.wake(o);
        }
    }

    /** One waiting request; its fields are only touched on its own loop. */
    private static final class Waiter {
        private final ResponseCache cache;
        private final Exchange ex;
        private final CachePolicy p;
        private final Origin origin;
        private final String key;
        private final EventLoop loop;
        private ScheduledFuture<?> timer;
        private boolean finished;

        Waiter(ResponseCache cache, Exchange ex, CachePolicy p, Origin origin, String key) {
            this.cache = cache;
            this.ex = ex;
            this.p = p;
            this.origin = origin;
            this.key = key;
            this.loop = ex.eventLoop();
        }

        void arm() {
            ex.onCancel(this::cancel);
            timer = loop.schedule(this::timeout, p.lockTimeoutNanos, TimeUnit.NANOSECONDS);
        }

        void wake(Outcome o) {
            if (loop.inEventLoop()) {
                act(o);
            } else {
                loop.execute(() -> act(o));
            }
        }

        private void act(Outcome o) {
            if (finished) {
                return;
            }
            finished = true;
            timer.cancel(false);
            switch (o.kind()) {
                case Outcome.SERVE -> {
                    if (o.entry().vary != null || !cache.serve(ex, o.entry(), System.currentTimeMillis(),
                            CacheLabel.HIT, p.xCacheHeader, cache.meters.hits)) {
                        cache.lookup(ex, p, origin, key);
                    }
                }
                case Outcome.LOOKUP -> cache.lookup(ex, p, origin, key);
                default -> cache.pass(ex, p, origin);
            }
        }

        private void timeout() {
            if (!finished) {
                finished = true;
                cache.pass(ex, p, origin); // the fetch is slow: do not hold this request up any longer
            }
        }

        private void cancel() {
            if (!finished) {
                finished = true;
                timer.cancel(false);
            }
        }
    }
}
