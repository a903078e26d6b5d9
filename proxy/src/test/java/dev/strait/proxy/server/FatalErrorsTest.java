package dev.strait.proxy.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Out of memory, or an event loop gone, ends the process with exit code 3 instead of leaving it half
 * alive (audit 2, cache finding 1: a loop died of a direct-memory OutOfMemoryError, health checks stayed
 * green and SIGTERM hung). The decision is tested here without halting this JVM; one child JVM shows the
 * halt itself.
 */
class FatalErrorsTest {
    private final List<Integer> halts = new CopyOnWriteArrayList<>();

    @AfterEach
    void disarm() {
        FatalErrors.installForTest(null);
    }

    @Test
    void outOfMemoryIsFatalAlsoAsACause() {
        OutOfMemoryError direct = new OutOfMemoryError("Cannot reserve 1000000 bytes of direct buffer memory");
        assertThat(FatalErrors.isFatal(direct)).isTrue();
        assertThat(FatalErrors.isFatal(new IllegalStateException("wrapped", direct))).isTrue();
        assertThat(FatalErrors.isFatal(new IOException("connection reset"))).isFalse();
        assertThat(FatalErrors.isFatal(new StackOverflowError())).isFalse();
        assertThat(FatalErrors.isFatal(null)).isFalse();
    }

    @Test
    void anythingThatEndsAnEventLoopThreadIsFatal() {
        Thread loop = new FastThreadLocalThread(() -> { }, "strait-loop-1-1");
        Thread other = new Thread(() -> { }, "strait-reload");
        assertThat(FatalErrors.haltsFor(loop, new IllegalStateException())).isTrue();
        assertThat(FatalErrors.haltsFor(other, new IllegalStateException())).isFalse();
        assertThat(FatalErrors.haltsFor(other, new OutOfMemoryError())).isTrue();
    }

    @Test
    void checkHaltsOnlyWhenArmedAndOnlyOnFatalErrors() {
        FatalErrors.check(new OutOfMemoryError()); // not armed (as in every other test): logged only
        FatalErrors.installForTest(halts::add);
        FatalErrors.check(new IOException("reset"));
        assertThat(halts).isEmpty();
        FatalErrors.check(new RuntimeException(new OutOfMemoryError("Java heap space")));
        FatalErrors.uncaught(new FastThreadLocalThread(() -> { }, "strait-loop-1-2"), new IllegalStateException());
        assertThat(halts).containsExactly(FatalErrors.EXIT_CODE, FatalErrors.EXIT_CODE);
    }

    /** NIO, except that its run throws once {@code boom} is set, as an allocation failing in the I/O path does. */
    private static IoHandlerFactory failingWhen(AtomicBoolean boom) {
        return executor -> {
            IoHandler nio = NioIoHandler.newFactory().newHandler(executor);
            return new IoHandler() {
                @Override
                public void initialize() {
                    nio.initialize();
                }

                @Override
                public int run(IoHandlerContext context) {
                    if (boom.get()) {
                        throw new OutOfMemoryError("Cannot reserve 1000000 bytes of direct buffer memory");
                    }
                    return nio.run(context);
                }

                @Override
                public void prepareToDestroy() {
                    nio.prepareToDestroy();
                }

                @Override
                public void destroy() {
                    nio.destroy();
                }

                @Override
                public IoRegistration register(IoHandle handle) throws Exception {
                    return nio.register(handle);
                }

                @Override
                public void wakeup() {
                    nio.wakeup();
                }

                @Override
                public boolean isCompatible(Class<? extends IoHandle> handleType) {
                    return nio.isCompatible(handleType);
                }
            };
        };
    }

    @Test
    void anEventLoopThatStopsBeforeItsGroupIsShutDownIsFatal() {
        FatalErrors.installForTest(halts::add);
        AtomicBoolean boom = new AtomicBoolean();
        FatalErrors.Loops loops = new FatalErrors.Loops(2, new DefaultThreadFactory("test-loop", true), failingWhen(boom));
        try {
            // Netty catches what ends a loop's run, logs it and ends the thread quietly: only the loop's end shows.
            loops.next().execute(() -> boom.set(true));
            await().atMost(Duration.ofSeconds(5)).until(() -> !halts.isEmpty());
            assertThat(halts).containsOnly(FatalErrors.EXIT_CODE);
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void shuttingTheGroupDownIsNot() {
        FatalErrors.installForTest(halts::add);
        FatalErrors.Loops loops = new FatalErrors.Loops(2, new DefaultThreadFactory("test-loop", true),
                NioIoHandler.newFactory());
        loops.next().submit(() -> { }).syncUninterruptibly(); // the loops run
        assertThat(loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS)).isTrue();
        assertThat(loops.isTerminated()).isTrue();
        assertThat(halts).isEmpty();
    }

    /** The child JVM of {@link #anOutOfMemoryErrorHaltsTheProcessWithExitCode3}. */
    public static final class Crash {
        public static void main(String[] args) throws Exception {
            FatalErrors.install();
            Thread t = new Thread(() -> {
                throw new OutOfMemoryError("Cannot reserve 1000000 bytes of direct buffer memory");
            }, "worker");
            t.start();
            t.join();
            Thread.sleep(30_000); // a half-dead process would stay up
            System.exit(0);
        }
    }

    @Test
    void anOutOfMemoryErrorHaltsTheProcessWithExitCode3() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Crash.class.getName())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(FatalErrors.EXIT_CODE);
        } finally {
            p.destroyForcibly();
        }
    }
}
