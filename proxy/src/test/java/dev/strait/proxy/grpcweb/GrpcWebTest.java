package dev.strait.proxy.grpcweb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.H2cServer;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A browser's gRPC-Web calls through a real proxy to a real h2c gRPC server: the server sees a gRPC call
 * ({@code application/grpc}, {@code TE: trailers}, the messages decoded from text mode), and the client reads the
 * answer's messages and then its trailers as gRPC-Web's last frame, in binary and in base64 text.
 */
class GrpcWebTest {
    private final ProxyHarness h = new ProxyHarness();
    /** What the gRPC server got: each call's fields and body. */
    private final List<Http2Headers> calls = new CopyOnWriteArrayList<>();
    private final List<byte[]> bodies = new CopyOnWriteArrayList<>();
    private H2cServer server;

    @BeforeEach
    void start() throws Exception {
        server = new H2cServer(GrpcEcho::new);
        int port = server.port();
        h.start("""
                upstreams: [ { name: grpc, protocol: h2c, endpoints: [ "127.0.0.1:%d" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: grpc } ]
                """.formatted(port));
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
        server.close();
    }

    /**
     * A gRPC server that answers each call with one message ({@code "echo:"} and the request's messages' bytes) and
     * the trailers {@code grpc-status: 0}, {@code grpc-message: fine}; a call to {@code /x.Svc/Fail} gets a
     * trailers-only answer, {@code grpc-status: 12}.
     */
    private final class GrpcEcho extends ChannelInboundHandlerAdapter {
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                boolean end;
                if (msg instanceof Http2HeadersFrame f) {
                    calls.add(f.headers());
                    end = f.isEndStream();
                } else if (msg instanceof Http2DataFrame d) {
                    body.writeBytes(ByteBufUtil.getBytes(d.content()));
                    end = d.isEndStream();
                } else {
                    return;
                }
                if (!end) {
                    return;
                }
                bodies.add(body.toByteArray());
                if (calls.get(calls.size() - 1).path().toString().endsWith("/Fail")) {
                    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")
                            .add("content-type", "application/grpc").add("grpc-status", "12"), true));
                    return;
                }
                byte[] payload = ("echo:" + new String(messages(body.toByteArray()), StandardCharsets.ISO_8859_1))
                        .getBytes(StandardCharsets.ISO_8859_1);
                ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")
                        .add("content-type", "application/grpc+proto")));
                ctx.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(frame(0, payload))));
                ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().add("grpc-status", "0")
                        .add("grpc-message", "fine"), true));
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }
    }

    /** A gRPC (and gRPC-Web) frame: flag, 4-byte length, payload. */
    static byte[] frame(int flag, byte[] payload) {
        ByteBuf b = Unpooled.buffer().writeByte(flag).writeInt(payload.length).writeBytes(payload);
        return ByteBufUtil.getBytes(b);
    }

    /** The payloads of the frames in {@code body}, one after another. */
    static byte[] messages(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuf b = Unpooled.wrappedBuffer(body);
        while (b.readableBytes() >= 5) {
            b.readByte();
            out.writeBytes(ByteBufUtil.getBytes(b.readSlice(b.readInt())));
        }
        return out.toByteArray();
    }

    private RawClient.Response call(String path, String type, byte[] body) throws Exception {
        try (RawClient c = new RawClient(h.address())) {
            c.send(("POST " + path + " HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: " + type
                    + "\r\nX-Grpc-Web: 1\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            c.send(body);
            return c.read();
        }
    }

    private static final byte[] TRAILER_FRAME = frame(0x80, "grpc-status:0\r\ngrpc-message:fine\r\n"
            .getBytes(StandardCharsets.US_ASCII));

    @Test
    void aBinaryCallReachesTheServerAsGrpcAndItsTrailersComeBackAsTheLastFrame() throws Exception {
        RawClient.Response r = call("/x.Svc/Say", "application/grpc-web+proto", frame(0, "hi".getBytes()));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("application/grpc-web+proto");
        byte[] expected = concat(frame(0, "echo:hi".getBytes()), TRAILER_FRAME);
        assertThat(r.body()).isEqualTo(expected);

        Http2Headers seen = calls.get(0);
        assertThat(seen.get("content-type").toString()).isEqualTo("application/grpc+proto");
        assertThat(seen.get("te").toString()).isEqualTo("trailers");
        assertThat(seen.path().toString()).isEqualTo("/x.Svc/Say");
        assertThat(bodies.get(0)).isEqualTo(frame(0, "hi".getBytes()));
    }

    @Test
    void aTextCallIsDecodedOnTheWayInAndEncodedOnTheWayOut() throws Exception {
        // Two messages, each base64-encoded on its own (padding in the middle), as some clients send them.
        String body = Base64.getEncoder().encodeToString(frame(0, "a".getBytes()))
                + Base64.getEncoder().encodeToString(frame(0, "bcd".getBytes()));
        RawClient.Response r = call("/x.Svc/Say", "application/grpc-web-text", body.getBytes(StandardCharsets.US_ASCII));
        assertThat(r.header("content-type")).isEqualTo("application/grpc-web-text");
        assertThat(bodies.get(0)).isEqualTo(concat(frame(0, "a".getBytes()), frame(0, "bcd".getBytes())));
        assertThat(calls.get(0).get("content-type").toString()).isEqualTo("application/grpc");
        assertThat(calls.get(0).contains("content-length")).as("the decoded body is shorter than declared").isFalse();
        // Each part padded on its own: the message's and the trailers' base64 one after the other.
        String answer = new String(r.body(), StandardCharsets.US_ASCII);
        assertThat(answer).isEqualTo(Base64.getEncoder().encodeToString(frame(0, "echo:abcd".getBytes()))
                + Base64.getEncoder().encodeToString(TRAILER_FRAME));
    }

    @Test
    void aTrailersOnlyAnswerKeepsItsStatusInTheHead() throws Exception {
        RawClient.Response r = call("/x.Svc/Fail", "application/grpc-web", frame(0, new byte[0]));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("grpc-status")).isEqualTo("12");
        assertThat(r.header("content-type")).isEqualTo("application/grpc-web");
        assertThat(r.body()).isEmpty();
    }

    @Test
    void aTextBodyThatIsNotBase64NeverReachesTheServerWhole() throws Exception {
        RawClient.Response r = call("/x.Svc/Say", "application/grpc-web-text", "AAAA*AAA".getBytes(StandardCharsets.US_ASCII));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.text()).contains("not base64");
        assertThat(bodies).isEmpty();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
