package dev.strait.operator.publish;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.operator.translate.Scope;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One proxy's connection: the last handler of the pipeline, after framing. Expects {@code hello}
 * first, then {@code ack}, {@code nack} and {@code ping}; anything else is answered with {@code error}
 * and the connection is closed. Fields below are guarded by the {@link Fleet}'s lock.
 */
final class ProxySession extends SimpleChannelInboundHandler<ByteBuf> {
    private static final Logger log = LoggerFactory.getLogger(ProxySession.class);
    private static final AtomicLong IDS = new AtomicLong();

    final long id = IDS.incrementAndGet();
    private final Fleet fleet;
    private final Authenticator authenticator;
    private Channel channel;
    String remote = "?";
    private boolean helloSeen;
    ProxyIdentity identity;
    Scope scope;
    String sent;
    String acked;
    long ackedSeq = -1;
    String nacked;
    String nackError;
    /** It said {@code features: ["delta"]} in hello: updates after the first may be deltas. */
    boolean deltas;

    ProxySession(Fleet fleet, Authenticator authenticator) {
        this.fleet = fleet;
        this.authenticator = authenticator;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        remote = String.valueOf(ctx.channel().remoteAddress());
        ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
        JsonNode msg;
        try {
            msg = Messages.parse(ByteBufUtil.getBytes(frame));
        } catch (IOException e) {
            refuse(ctx, "not a JSON message: " + e.getMessage());
            return;
        }
        String type = msg.path("type").asText("");
        if (!helloSeen && !type.equals("hello")) {
            refuse(ctx, "the first message must be hello");
            return;
        }
        if (identity == null && !type.equals("hello") && !type.equals("ping")) {
            refuse(ctx, "not authenticated yet");
            return;
        }
        switch (type) {
            case "hello" -> hello(ctx, msg);
            case "ack" -> fleet.acked(this, msg.path("version").asText(null));
            case "nack" -> {
                if (msg.path("resync").asBoolean(false)) {
                    fleet.resync(this, msg.path("version").asText(null), msg.path("error").asText(""));
                } else {
                    fleet.nacked(this, msg.path("version").asText(null), msg.path("error").asText(""));
                }
            }
            case "ping" -> { }
            default -> refuse(ctx, "unknown message type \"" + type + "\"");
        }
    }

    private void hello(ChannelHandlerContext ctx, JsonNode msg) {
        if (helloSeen) {
            refuse(ctx, "hello was already said");
            return;
        }
        if (msg.path("protocol").asInt(-1) != Messages.PROTOCOL) {
            refuse(ctx, "unsupported protocol " + msg.path("protocol") + "; this operator speaks " + Messages.PROTOCOL);
            return;
        }
        ProxyIdentity id = ProxyIdentity.from(msg.get("node"));
        if (id == null) {
            refuse(ctx, "hello needs node: {ingressClass} or {namespace, pod}");
            return;
        }
        helloSeen = true;
        for (JsonNode f : msg.path("features")) {
            deltas |= Messages.DELTA.equals(f.asText());
        }
        String serving = msg.path("version").asText(null);
        authenticator.check(ctx.channel(), id, msg.path("token").asText(null)).whenComplete((denied, failure) ->
                ctx.executor().execute(() -> {
                    if (failure != null || denied != null) {
                        refuse(ctx, failure != null ? "cannot authenticate: " + failure.getMessage() : denied);
                        return;
                    }
                    fleet.joined(this, id);
                    if (serving != null) {
                        log.debug("proxy {} serves {} from its state directory", this.id, serving);
                    }
                }));
    }

    boolean writable() {
        Channel ch = channel;
        return ch == null || ch.isWritable();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            fleet.writable(this);
        }
        ctx.fireChannelWritabilityChanged();
    }

    /** Sends one message; called under the fleet's lock from any thread (Netty queues it to the loop). */
    void write(byte[] message) {
        Channel ch = channel;
        if (ch != null) {
            ch.writeAndFlush(Unpooled.wrappedBuffer(message), ch.voidPromise());
        }
    }

    private void refuse(ChannelHandlerContext ctx, String why) {
        log.warn("closing control connection from {}: {}", remote, why);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(Messages.error(why))).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent e) {
            if (e.state() == IdleState.READER_IDLE) {
                log.info("proxy {} ({}) silent too long, closing", id, remote);
                ctx.close();
            } else if (e.state() == IdleState.WRITER_IDLE) {
                ctx.writeAndFlush(Unpooled.wrappedBuffer(Messages.ping()), ctx.voidPromise());
            }
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fleet.left(this);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("control connection from {} failed: {}", remote, cause.toString());
        ctx.close();
    }
}
