package dev.strait.proxy.server;

import dev.strait.proxy.http.PeerAddress;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.util.NetUtil;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First on a {@code proxyProtocol} listener's connections, after Netty's {@link HAProxyMessageDecoder} (v1 text or
 * v2 binary): the header's source address becomes the connection's peer ({@link PeerAddress}), then the listener's
 * own handlers (TLS or cleartext) are put in place, and the bytes that followed the header go to them. A
 * connection without a valid header is closed, as nginx does: a client that could skip it could name any address.
 * A {@code LOCAL} header (a load balancer's own health check) keeps the socket's peer. The header must come
 * within {@code limits.headerTimeout}.
 */
final class ProxyProtocolReader extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ProxyProtocolReader.class);
    static final String DECODER = "proxy-protocol-decoder";

    private final long timeoutMillis;
    private final Runnable then;
    private ScheduledFuture<?> timer;

    /** @param then adds the listener's handlers at the end of the pipeline */
    ProxyProtocolReader(long timeoutMillis, Runnable then) {
        this.timeoutMillis = timeoutMillis;
        this.then = then;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer = ctx.executor().schedule(() -> {
            log.debug("{}: no PROXY protocol header within {} ms: closed", ctx.channel().remoteAddress(),
                    timeoutMillis);
            ctx.close();
        }, timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        timer.cancel(false);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HAProxyMessage header)) {
            ReferenceCountUtil.release(msg); // the decoder passes nothing else before its header
            return;
        }
        try {
            InetSocketAddress source = source(header);
            if (source != null) {
                ctx.channel().attr(PeerAddress.KEY).set(source);
            }
        } finally {
            header.release();
        }
        // The decoder removes itself after this returns and hands what followed the header to the next handler.
        then.run();
        ctx.pipeline().remove(this);
    }

    /** The client a {@code PROXY} header names over TCP; null for {@code LOCAL}, UDP or UNKNOWN (the socket's peer). */
    static InetSocketAddress source(HAProxyMessage h) {
        HAProxyProxiedProtocol p = h.proxiedProtocol();
        if (h.command() != HAProxyCommand.PROXY || h.sourceAddress() == null
                || (p != HAProxyProxiedProtocol.TCP4 && p != HAProxyProxiedProtocol.TCP6)) {
            return null;
        }
        byte[] ip = NetUtil.createByteArrayFromIpAddressString(h.sourceAddress());
        try {
            return ip == null ? null : new InetSocketAddress(InetAddress.getByAddress(ip), h.sourcePort());
        } catch (UnknownHostException e) {
            return null; // not reached: four or sixteen bytes always make an address
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
        log.debug("{}: bad PROXY protocol header: {}", ctx.channel().remoteAddress(), cause.getMessage());
        ctx.close();
    }
}
