package dev.strait.proxy.fastcgi;

import static dev.strait.proxy.fastcgi.FastCgiRecords.END_REQUEST;
import static dev.strait.proxy.fastcgi.FastCgiRecords.GET_VALUES_RESULT;
import static dev.strait.proxy.fastcgi.FastCgiRecords.HEADER_LENGTH;
import static dev.strait.proxy.fastcgi.FastCgiRecords.UNKNOWN_TYPE;
import static dev.strait.proxy.fastcgi.FastCgiRecords.VERSION;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import java.util.List;

/**
 * Turns the bytes a FastCGI application sends into records. First in a FastCGI connection's pipeline:
 *
 * <pre>
 *   socket -> FastCgiRecordDecoder -> FastCgiConnection -> the request's FastCgiCall
 * </pre>
 *
 * Stream content (STDOUT, STDERR) is passed on as it arrives, as slices of what was read, without
 * waiting for a whole record (up to 64 KiB) or copying it: a streamed response reaches the client as
 * soon as its bytes do. Padding is skipped. END_REQUEST and the management records are small and are
 * read whole. A record with another version than 1 is a protocol error: the connection is closed.
 */
final class FastCgiRecordDecoder extends ByteToMessageDecoder {
    private boolean inRecord;
    private int type;
    private int requestId;
    private int remaining;
    private int padding;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (true) {
            if (!inRecord) {
                if (in.readableBytes() < HEADER_LENGTH) {
                    return;
                }
                int version = in.readUnsignedByte();
                if (version != VERSION) {
                    in.skipBytes(in.readableBytes());
                    throw new CorruptedFrameException("FastCGI record with version " + version + ", expected 1");
                }
                type = in.readUnsignedByte();
                requestId = in.readUnsignedShort();
                remaining = in.readUnsignedShort();
                padding = in.readUnsignedByte();
                in.skipBytes(1);
                inRecord = true;
            }
            if (type == END_REQUEST || type == GET_VALUES_RESULT || type == UNKNOWN_TYPE) {
                if (in.readableBytes() < remaining + padding) {
                    return;
                }
                if (type == END_REQUEST) {
                    if (remaining < 8) {
                        in.skipBytes(in.readableBytes());
                        throw new CorruptedFrameException("FastCGI END_REQUEST with " + remaining + " bytes, expected 8");
                    }
                    long appStatus = in.readUnsignedInt();
                    int protocolStatus = in.readUnsignedByte();
                    in.skipBytes(remaining - 5 + padding);
                    out.add(new FastCgiRecords.EndRequest(requestId, appStatus, protocolStatus));
                } else {
                    in.skipBytes(remaining + padding); // management answers we never asked for
                }
                inRecord = false;
                continue;
            }
            if (remaining > 0) {
                int n = Math.min(remaining, in.readableBytes());
                if (n == 0) {
                    return;
                }
                out.add(new FastCgiRecords.StreamRecord(type, requestId, in.readRetainedSlice(n)));
                remaining -= n;
                if (remaining > 0) {
                    return;
                }
            }
            int skip = Math.min(padding, in.readableBytes());
            in.skipBytes(skip);
            padding -= skip;
            if (padding > 0) {
                return;
            }
            inRecord = false;
        }
    }
}
