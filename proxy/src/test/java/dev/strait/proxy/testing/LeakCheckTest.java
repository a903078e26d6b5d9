package dev.strait.proxy.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which leaks fail a class: all but Netty's own io_uring read buffers that never reached a pipeline. */
class LeakCheckTest {
    /** The start of a record seen in CI: a read buffer of Netty's io_uring transport, never touched. */
    private static final String NETTY_READ = "\n" +
            "Recent access records: \n" +
            "Created at:\n" +
            "\tio.netty.buffer.AdaptiveByteBufAllocator.newDirectBuffer(AdaptiveByteBufAllocator.java:67)\n" +
            "\tio.netty.buffer.AbstractByteBufAllocator.directBuffer(AbstractByteBufAllocator.java:168)\n" +
            "\tio.netty.buffer.AbstractByteBufAllocator.directBuffer(AbstractByteBufAllocator.java:159)\n" +
            "\tio.netty.channel.unix.PreferredDirectByteBufAllocator.ioBuffer(PreferredDirectByteBufAllocator.java:53)\n" +
            "\tio.netty.channel.DefaultMaxMessagesRecvByteBufAllocator$MaxMessageHandle.allocate(DefaultMaxMessagesRecvByteBufAllocator.java:120)\n" +
            "\tio.netty.channel.uring.IoUringRecvByteAllocatorHandle.allocate(IoUringRecvByteAllocatorHandle.java:57)\n" +
            "\tio.netty.channel.uring.AbstractIoUringStreamChannel$IoUringStreamUnsafe.scheduleRead0(AbstractIoUringStreamChannel.java:444)\n";

    @Test
    void nettysOwnUntouchedIoUringReadBufferIsNotOurs() {
        assertThat(LeakCheck.insideNettysIoUring(NETTY_READ)).isTrue();
    }

    @Test
    void aBufferThatReachedAPipelineIsOurs() {
        String touched = NETTY_READ.replace("Recent access records: \n",
                "Recent access records: \n#1:\n\tio.netty.channel.DefaultChannelPipeline.touch(DefaultChannelPipeline.java:117)\n"
                        + "\tdev.strait.proxy.http1.Http1RequestDecoder.decode(Http1RequestDecoder.java:90)\n");
        assertThat(LeakCheck.insideNettysIoUring(touched)).isFalse();
        assertThat(LeakCheck.insideNettysIoUring("\nRecent access records: \nCreated at:\n"
                + "\tio.netty.buffer.AbstractByteBufAllocator.directBuffer(AbstractByteBufAllocator.java:159)\n"
                + "\tdev.strait.proxy.handler.proxy.RequestHead.encode(RequestHead.java:80)\n")).isFalse();
    }
}
