package dev.strait.proxy.server;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Errors the proxy does not live through: it stops at once with exit code {@value #EXIT_CODE} (as the
 * JVM's own {@code -XX:+ExitOnOutOfMemoryError} does) so that Kubernetes starts it again, instead of
 * going on half dead: an event loop gone (half the connections hang), health checks still green, and a
 * SIGTERM whose drain waits for that loop forever.
 *
 * <ul>
 *   <li>an {@link OutOfMemoryError} anywhere: out of direct memory it is thrown by Java code
 *       ({@code Bits.reserveMemory}, Netty's allocator), which {@code ExitOnOutOfMemoryError} does not see;</li>
 *   <li>any throwable that ends an event-loop thread, and an event loop that stops while its group was
 *       not shut down (Netty catches what ends its loop, logs it and lets the thread end quietly).</li>
 * </ul>
 *
 * <p>{@link #install()} (from {@code Main}) arms it; until then, as in tests, a fatal error is only logged.
 * Handlers that catch {@code Throwable} or see {@code exceptionCaught} call {@link #check(Throwable)}.
 * It halts ({@link Runtime#halt}): shutdown hooks would drain through the broken loops.
 */
public final class FatalErrors {
    private static final Logger log = LoggerFactory.getLogger(FatalErrors.class);

    static final int EXIT_CODE = 3;

    private static volatile boolean installed;
    private static final AtomicBoolean reported = new AtomicBoolean();
    private static volatile IntConsumer halt = code -> Runtime.getRuntime().halt(code);

    private FatalErrors() {}

    /** Arms it for this process: fatal errors halt it, and uncaught ones are looked at. */
    public static void install() {
        installed = true;
        Thread.setDefaultUncaughtExceptionHandler(FatalErrors::uncaught);
    }

    /** Halts the process when {@code t} is fatal ({@link #isFatal}); returns otherwise. */
    public static void check(Throwable t) {
        if (isFatal(t)) {
            fatal("out of memory on " + Thread.currentThread().getName(), t);
        }
    }

    /** An {@link OutOfMemoryError}, also as the cause of another throwable (a wrapper's, a future's). */
    static boolean isFatal(Throwable t) {
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                return true;
            }
        }
        return false;
    }

    /** Whether a throwable that ended {@code thread} ends the process: when fatal, or when it ended an event loop. */
    static boolean haltsFor(Thread thread, Throwable t) {
        return isFatal(t) || thread instanceof FastThreadLocalThread;
    }

    static void uncaught(Thread thread, Throwable t) {
        if (haltsFor(thread, t)) {
            fatal("uncaught on " + thread.getName(), t);
        } else {
            // What the JVM prints when no handler is set.
            System.err.print("Exception in thread \"" + thread.getName() + "\" ");
            t.printStackTrace(System.err);
        }
    }

    /** Logs once (the first of several threads to get here), then halts when installed. */
    static void fatal(String what, Throwable t) {
        if (reported.compareAndSet(false, true)) {
            try {
                log.error("fatal: {}; {}", what, installed ? "halting the process (exit " + EXIT_CODE + ")"
                        : "not halting: FatalErrors.install() was not called", t);
            } catch (Throwable ignored) {
                // out of memory for the message itself: halt without it
            }
        }
        if (installed) {
            halt.accept(EXIT_CODE);
        }
    }

    /** For tests: arms it with another way to stop than halting the JVM; {@code null} disarms it again. */
    static void installForTest(IntConsumer stop) {
        reported.set(false);
        halt = stop != null ? stop : code -> Runtime.getRuntime().halt(code);
        installed = stop != null;
    }

    /**
     * The proxy's event loops: an event loop that stops before the group is shut down is fatal. Netty
     * ends a loop whose run threw (an allocation failing in the I/O path, say), logging it, and the
     * thread then ends normally: only the loop's termination shows it.
     */
    public static final class Loops extends MultiThreadIoEventLoopGroup {
        private volatile boolean stopping;

        public Loops(int threads, ThreadFactory threadFactory, IoHandlerFactory ioHandlerFactory) {
            super(threads, threadFactory, ioHandlerFactory);
            for (EventExecutor loop : this) {
                loop.terminationFuture().addListener(f -> {
                    if (!stopping) {
                        fatal("an event loop stopped unexpectedly (its error is logged above)", f.cause());
                    }
                });
            }
        }

        @Override
        public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
            stopping = true;
            return super.shutdownGracefully(quietPeriod, timeout, unit);
        }

        @Override
        @Deprecated
        public void shutdown() {
            stopping = true;
            super.shutdown();
        }
    }
}
