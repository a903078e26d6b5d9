package io.netty.channel.uring;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.unix.Buffer;
import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.function.IntSupplier;

/**
 * Netty's io_uring loop, except that a loop with many requests waiting on upstreams, which has just
 * handled a batch of completions, waits in the kernel for a like batch or at most
 * {@link #MAX_WAIT_NANOS} instead of waking for the first completion (docs/adr/0039).
 *
 * <p>Why: a sidecar shares its CPUs with the app and the clients. A loop that wakes for every packet
 * answers in small batches, and each one wakes a client or the app, which preempts the other: the peers
 * then pay for context switches what the proxy saves. With Netty's default {@code DEFER_TASKRUN} the
 * kernel does not wake the loop, nor interrupt its CPU, until the batch is there, and the wait's timer
 * runs on the loop's own CPU. Light traffic and fixed responses never wait: the loop waits as Netty's
 * does unless {@link #MIN_WAITING} requests are in flight to upstreams and the last turn handled
 * {@link #MIN_BATCH} completions, and then a request waits at most {@link #MAX_WAIT_NANOS} longer.
 *
 * <p>It lives in Netty's package because the ring is Netty's: it uses the submission queue's
 * package-private methods, and looks up the three private members it needs once. Where a Netty
 * version lacks them, {@link #newFactory} returns Netty's own handler and says so in the log.
 */
public final class CoalescingIoUringHandler implements IoHandler {
    /** Requests in flight to upstreams on the loop before its waits coalesce. */
    static final int MIN_WAITING = 16;
    /** Completions the last turn must have handled before the next wait coalesces. */
    static final int MIN_BATCH = 4;
    /** The largest batch waited for (a wait submits that many entries). */
    static final int MAX_BATCH = 16;
    /** The longest a coalescing wait lasts (a loopback request through an app takes 40-200 us). */
    static final long MAX_WAIT_NANOS = 50_000;

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(CoalescingIoUringHandler.class);
    private static final Internals INTERNALS = Internals.lookUp();

    private final IoUringIoHandler netty;
    private final IntSupplier waiting;
    private final int minWaiting;
    private final int minBatch;
    private final int fixedBatch;
    // The wait's struct __kernel_timespec. Not Unsafe memory: Netty turns Unsafe off on JDK 24+, where
    // PlatformDependent.allocateMemory fails and no ring could be made; the JNI address works on every JDK.
    private final CleanableDirectBuffer timespecBuffer = Buffer.allocateDirectBufferWithNativeOrder(16);
    private final long timespec = Buffer.memoryAddress(timespecBuffer.buffer());
    private SubmissionQueue submissions;
    private CompletionQueue completions;
    private int lastBatch;
    private long coalescedWaits;
    private NoBlocking noBlocking;

    private CoalescingIoUringHandler(IoUringIoHandler netty, IntSupplier waiting, Settings settings) {
        this.netty = netty;
        this.waiting = waiting;
        this.minWaiting = settings.minWaiting;
        this.minBatch = settings.minBatch;
        this.fixedBatch = settings.fixedBatch;
        timespecBuffer.buffer().putLong(0, 0);                   // tv_sec
        timespecBuffer.buffer().putLong(8, settings.waitNanos);  // tv_nsec
    }

    /** The thresholds; tests shrink them to reach the edge cases. {@code fixedBatch} 0: the last turn's. */
    record Settings(int minWaiting, int minBatch, int fixedBatch, long waitNanos) {
        static final Settings DEFAULT = new Settings(MIN_WAITING, MIN_BATCH, 0, MAX_WAIT_NANOS);
    }

    /**
     * Loops whose waits coalesce while {@code waitingOnUpstreams} (called on the loop's own thread)
     * reaches {@link #MIN_WAITING}; Netty's own handler where this Netty lacks what it needs.
     */
    public static IoHandlerFactory newFactory(IntSupplier waitingOnUpstreams, IoUringIoHandlerConfig config) {
        return newFactory(waitingOnUpstreams, Settings.DEFAULT, config);
    }

    static IoHandlerFactory newFactory(IntSupplier waitingOnUpstreams, Settings settings) {
        return newFactory(waitingOnUpstreams, settings, new IoUringIoHandlerConfig());
    }

    static IoHandlerFactory newFactory(IntSupplier waitingOnUpstreams, Settings settings, IoUringIoHandlerConfig config) {
        IoHandlerFactory netty = IoUringIoHandler.newFactory(config);
        if (INTERNALS == null) {
            return netty;
        }
        return executor -> new CoalescingIoUringHandler(
            (IoUringIoHandler) netty.newHandler(executor), waitingOnUpstreams, settings);
    }

    /** Whether {@link #newFactory} coalesces with this Netty. */
    public static boolean available() {
        return INTERNALS != null;
    }

    @Override
    public void initialize() {
        netty.initialize();
        RingBuffer ring = INTERNALS.ring(netty);
        submissions = ring.ioUringSubmissionQueue();
        completions = ring.ioUringCompletionQueue();
    }

    @Override
    public int run(IoHandlerContext context) {
        if (lastBatch >= minBatch && context.canBlock() && !completions.hasCompletions()
                && waiting.getAsInt() >= minWaiting) {
            waitFor(fixedBatch > 0 ? fixedBatch : Math.min(lastBatch, MAX_BATCH));
            coalescedWaits++;
            if (noBlocking == null || noBlocking.loop != context) {
                noBlocking = new NoBlocking(context); // the loop passes the same context every turn
            }
            return lastBatch = netty.run(noBlocking);
        }
        return lastBatch = netty.run(context);
    }

    /**
     * Submits what is queued and waits for {@code batch} completions. A timeout bounds the wait: it
     * completes after {@code batch} other completions or {@link #MAX_WAIT_NANOS}, whichever comes first.
     * Linked to it are {@code batch - 1} no-ops that post nothing when they run (the count was reached)
     * and are cancelled, each posting a completion, when the time ran out. So an expiry always makes
     * {@code batch} completions, even one that happened while the queue was still being submitted,
     * before the kernel began to wait (the kernel only wakes a waiter for timeouts that fire while it
     * waits). Netty drops these completions: they carry its ring's own token.
     */
    private void waitFor(int batch) {
        if (submissions.remaining() < batch) {
            submissions.submit(); // the chain must reach the kernel in one submission
        }
        submissions.enqueueSqe(Native.IORING_OP_TIMEOUT, (byte) Native.IOSQE_LINK, (short) 0, -1, batch,
            timespec, 1, 0, INTERNALS.ringToken, (short) 0, (short) 0, 0, 0L);
        for (int i = 1; i < batch; i++) {
            int link = i < batch - 1 ? Native.IOSQE_LINK : 0;
            submissions.addNop((byte) (link | Native.IOSQE_CQE_SKIP_SUCCESS), INTERNALS.ringToken);
        }
        INTERNALS.submitAndWait(submissions, batch);
    }

    /** How many waits coalesced on this loop. */
    long coalescedWaits() {
        return coalescedWaits;
    }

    @Override
    public void prepareToDestroy() {
        netty.prepareToDestroy();
    }

    @Override
    public void destroy() {
        netty.destroy();
        timespecBuffer.clean();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        return netty.register(handle);
    }

    @Override
    public void wakeup() {
        netty.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return netty.isCompatible(handleType);
    }

    /** The loop's context, except that the turn after a coalesced wait must not wait again. */
    private record NoBlocking(IoHandlerContext loop) implements IoHandlerContext {
        @Override
        public boolean canBlock() {
            return false;
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return loop.delayNanos(currentTimeNanos);
        }

        @Override
        public long deadlineNanos() {
            return loop.deadlineNanos();
        }

        @Override
        public void reportActiveIoTime(long activeNanos) {
            loop.reportActiveIoTime(activeNanos);
        }

        @Override
        public boolean shouldReportActiveIoTime() {
            return loop.shouldReportActiveIoTime();
        }
    }

    /** The private members of Netty's handler and queue this needs, looked up once. */
    private record Internals(VarHandle ringBuffer, MethodHandle submitAndGet, long ringToken) {
        static Internals lookUp() {
            try {
                MethodHandles.Lookup handler = MethodHandles.privateLookupIn(IoUringIoHandler.class, MethodHandles.lookup());
                MethodHandles.Lookup queue = MethodHandles.privateLookupIn(SubmissionQueue.class, MethodHandles.lookup());
                return new Internals(
                    handler.findVarHandle(IoUringIoHandler.class, "ringBuffer", RingBuffer.class),
                    queue.findVirtual(SubmissionQueue.class, "submitAndGet0", MethodType.methodType(int.class, int.class)),
                    (long) handler.findStaticVarHandle(IoUringIoHandler.class, "RINGFD_TOKEN", long.class).get());
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                logger.info("io_uring: waits are not batched, this Netty's loop differs ({})", e.toString());
                return null;
            }
        }

        RingBuffer ring(IoUringIoHandler netty) {
            return (RingBuffer) ringBuffer.get(netty);
        }

        void submitAndWait(SubmissionQueue queue, int minComplete) {
            try {
                int submitted = (int) submitAndGet.invokeExact(queue, minComplete);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
