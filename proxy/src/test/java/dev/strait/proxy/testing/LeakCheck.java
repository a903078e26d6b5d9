package dev.strait.proxy.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reports a buffer leak during it. Registered for every proxy test
 * (junit-platform.properties autodetection); surefire runs with paranoid leak detection, so every
 * buffer is tracked. Leaks surface when a leaked buffer is collected, so after each class this forces
 * a few collections and allocations to let the detector report.
 */
public final class LeakCheck implements AfterAllCallback {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    static {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                       long maxActive) {
                return new ResourceLeakDetector<T>(resource, samplingInterval) {
                    @Override
                    protected void reportTracedLeak(String resourceType, String records) {
                        if (!insideNettysIoUring(records)) {
                            LEAKS.add(resourceType + " leaked:" + records);
                        }
                        super.reportTracedLeak(resourceType, records);
                    }

                    @Override
                    protected void reportUntracedLeak(String resourceType) {
                        LEAKS.add(resourceType + " leaked (untraced)");
                        super.reportUntracedLeak(resourceType);
                    }
                };
            }
        });
    }

    /**
     * A read buffer Netty's io_uring transport allocated for a read and lost itself: it has no access record,
     * so it never reached a pipeline (every {@code channelRead} touches its message under paranoid
     * detection), and none of our code held it. Netty 4.2.18 loses one now and then when a channel closes
     * with a read in flight (netty/netty#14539 and #16359 fixed such cases before); it is logged by the
     * detector as ever, and does not fail the class, which would then fail on a bug that is not ours.
     */
    static boolean insideNettysIoUring(String records) {
        int created = records.indexOf("Created at:");
        return created >= 0 && records.substring(0, created).replace("Recent access records:", "").isBlank()
                && records.contains("IoUringRecvByteAllocatorHandle.allocate")
                && records.contains("IoUringStreamUnsafe.scheduleRead0");
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (int i = 0; i < 3 && LEAKS.isEmpty(); i++) {
            System.gc();
            Thread.sleep(20);
            // Allocation is what makes the detector poll its queue of collected, unreleased buffers.
            for (int j = 0; j < 64; j++) {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(16);
                b.release();
            }
        }
        if (!LEAKS.isEmpty()) {
            String report = String.join("\n", LEAKS);
            LEAKS.clear();
            throw new AssertionError("Netty buffer leak(s) in " + context.getDisplayName() + ":\n" + report);
        }
    }
}
