package dev.strait.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.DefaultHttp2LocalFlowController;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * The windows a client's DATA is counted against (Netty's local flow controller), except for DATA past a
 * stream's window: that is still counted, but the stream error is left to {@link Http2ServerHandler},
 * which resets the stream with {@code FLOW_CONTROL_ERROR} (RFC 9113 6.9.1; nginx and nghttp2 do the same)
 * and leaves the connection and its other streams alone.
 *
 * <p>Thrown from here, the error made Netty's decoder give the frame's bytes back twice (it measures what
 * the listener consumed against the count from before the frame), and the second return ended the whole
 * connection with {@code INTERNAL_ERROR} ("Attempting to return too many bytes for stream 0").
 * The connection's window is still enforced here: past it is a connection error, as before.
 */
final class InboundFlowControl extends DefaultHttp2LocalFlowController {
    /** The stream whose window the DATA frame being read overran; 0 if it did not. */
    private int overrun;

    InboundFlowControl(Http2Connection connection) {
        super(connection);
    }

    @Override
    public void receiveFlowControlledFrame(Http2Stream stream, ByteBuf data, int padding, boolean endOfStream)
            throws Http2Exception {
        overrun = 0;
        try {
            super.receiveFlowControlledFrame(stream, data, padding, endOfStream);
        } catch (Http2Exception.StreamException e) {
            if (stream == null || e.error() != Http2Error.FLOW_CONTROL_ERROR) {
                throw e;
            }
            overrun = stream.id(); // counted in both windows: the stream's reset gives it back to the connection
        }
    }

    /** Whether the DATA frame just read on {@code streamId} overran that stream's window (asked once per frame). */
    boolean overran(int streamId) {
        if (overrun == 0 || overrun != streamId) {
            return false;
        }
        overrun = 0;
        return true;
    }
}
