package dev.strait.proxy.passthrough;

import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.handler.proxy.TunnelRelay;
import dev.strait.proxy.http.PeerAddress;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.FatalErrors;
import dev.strait.proxy.tls.SniSelector;
import dev.strait.proxy.tls.SniTable;
import dev.strait.proxy.upstream.EndpointPool;
import dev.strait.proxy.upstream.LoopContext;
import dev.strait.proxy.upstream.LoopUpstream;
import dev.strait.proxy.upstream.UpstreamSpec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.haproxy.HAProxyMessageEncoder;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS passthrough (routes' {@code tlsPassthrough}; ADR 0082): a connection whose ClientHello names a passed-through
 * host is not decrypted but joined to a new connection to an endpoint of the route's upstream, ClientHello first,
 * bytes as they are both ways. The upstream ends TLS with its own certificate, so the proxy sees no requests: one
 * access-log line per connection, status 200 once joined or 502 when no endpoint took it (nginx's stream module),
 * counted in {@code strait_requests} under the route with that status.
 *
 * <p>The client is not read while the endpoint is chosen and connected; a failed connect counts against that
 * endpoint's health and the next one is tried once, as a request's failed connect is retried.
 */
public final class TlsPassthrough implements SniSelector.PassthroughStart {
    private static final Logger log = LoggerFactory.getLogger(TlsPassthrough.class);
    /** No byte either way for this long closes both (nginx's stream {@code proxy_timeout}). */
    static final long IDLE_NANOS = TimeUnit.MINUTES.toNanos(10);
    /** Endpoints tried per connection: the first and one more. */
    private static final int TRIES = 2;

    private final Serving serving;
    private final ProxyMetrics metrics;
    private final AccessLog accessLog;

    /** @param accessLog where the connections are logged, or null */
    public TlsPassthrough(Serving serving, ProxyMetrics metrics, AccessLog accessLog) {
        this.serving = serving;
        this.metrics = metrics;
        this.accessLog = accessLog;
    }

    @Override
    public void start(ChannelHandlerContext ctx, String serverName, SniTable.Passthrough to) {
        Channel client = ctx.channel();
        client.config().setAutoRead(false);
        // A client that sends and then shuts its side (FIN) still gets the answer (TunnelRelay): from now on, and
        // while its endpoint is connecting too, its FIN ends its input only.
        client.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        if (client.pipeline().get("alpn") != null) {
            client.pipeline().remove("alpn"); // no TLS ends here: nothing to negotiate
        }
        Joining joining = new Joining(client, serverName, to);
        // The ClientHello (and whatever came with it) the selector read reaches Joining as the selector leaves.
        client.pipeline().replace(ctx.handler(), "passthrough", joining);
        joining.connect(null, 1);
    }

    /** The client's side until an endpoint has connected: holds what the client sent, then hands over to the relay. */
    private final class Joining extends ChannelInboundHandlerAdapter {
        private final Channel client;
        private final String serverName;
        private final SniTable.Passthrough to;
        private final long startNanos = System.nanoTime();
        private final List<Object> held = new ArrayList<>();
        private Channel upstream;
        private boolean over;

        Joining(Channel client, String serverName, SniTable.Passthrough to) {
            this.client = client;
            this.serverName = serverName;
            this.to = to;
        }

        void connect(EndpointPool failed, int attempt) {
            UpstreamSpec spec = serving.snapshot().upstreams().get(to.upstream());
            LoopContext lc = LoopContext.current();
            if (spec == null || lc == null || !client.isActive()) {
                refuse(spec == null ? "upstream " + to.upstream() + " is gone"
                        : lc == null ? "no upstream pools on this thread" : "the client left");
                return;
            }
            LoopUpstream lu = lc.upstream(spec);
            EndpointPool endpoint = lu.pick(LoopUpstream.addressHash(PeerAddress.of(client)), failed);
            if (endpoint == null) {
                refuse("no endpoint of upstream " + to.upstream() + " is available");
                return;
            }
            // A placeholder until the relay takes its place, once connected.
            io.netty.channel.ChannelFuture f = endpoint.connectRaw(new ChannelInboundHandlerAdapter());
            upstream = f.channel();
            f.addListener(done -> {
                if (!done.isSuccess()) {
                    f.channel().close();
                    lu.outcome(endpoint, 0, "connect failed: " + done.cause());
                    if (attempt < TRIES && client.isActive()) {
                        connect(endpoint, attempt + 1);
                    } else {
                        refuse("could not connect to " + endpoint.address() + ": " + done.cause().getMessage());
                    }
                    return;
                }
                lu.outcome(endpoint, 200, null); // connected: for passive health, as good as an answer
                if (!client.isActive()) {
                    f.channel().close();
                    return;
                }
                join(f.channel(), endpoint);
            });
        }

        private void join(Channel up, EndpointPool endpoint) {
            if (to.proxyProtocol() > 0) {
                // Ahead of the ClientHello, so that the backend knows the client (its certificate is its own).
                up.pipeline().addFirst("proxy-protocol", HAProxyMessageEncoder.INSTANCE);
                up.write(ProxyProtocolHeader.of(to.proxyProtocol(), PeerAddress.of(client), client.localAddress()),
                        up.voidPromise());
                up.pipeline().remove("proxy-protocol");
            }
            for (Object m : held) {
                up.write(m, up.voidPromise());
            }
            held.clear();
            up.flush();
            TunnelRelay[] pair = TunnelRelay.pair(up, IDLE_NANOS, true);
            over = true;
            client.pipeline().replace(this, "relay", pair[0]);
            up.pipeline().replace("relay", "relay", pair[1]);
            // Counted as a WebSocket tunnel is: once, when it starts, with the time it took to start.
            metrics.route(to.route()).record(200, System.nanoTime() - startNanos);
            client.closeFuture().addListener(c -> logged(200, pair[1].relayed(), endpoint));
            TunnelRelay.resumeReading(client);
            if (client instanceof io.netty.channel.socket.DuplexChannel d && d.isInputShutdown()) {
                pair[0].inputEnded(); // the FIN came before the relay, with the ClientHello or while connecting
            }
        }

        /** Nothing to join the client to: it is closed (its TLS cannot be answered by the proxy) and logged as 502. */
        private void refuse(String why) {
            over = true;
            release();
            log.debug("{}: TLS for {} not passed through: {}", PeerAddress.of(client), serverName, why);
            client.close();
            metrics.route(to.route()).record(502, System.nanoTime() - startNanos);
            logged(502, 0, null);
        }

        private void logged(int status, long bytes, EndpointPool endpoint) {
            if (accessLog == null || !AccessLog.onHere()) {
                return;
            }
            accessLog.log(new AccessLog.Entry(System.currentTimeMillis(), AccessLog.remote(PeerAddress.of(client)), null,
                    null, "tls-passthrough",
                    serverName, status, bytes, System.nanoTime() - startNanos, to.route(), null, null,
                    endpoint == null ? null : endpoint.address()));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf && !over) {
                held.add(msg);
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            release();
            if (upstream != null && !over) {
                upstream.close(); // the client left while its endpoint was connecting
            }
            ctx.fireChannelInactive();
        }

        private void release() {
            held.forEach(ReferenceCountUtil::release);
            held.clear();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
            ctx.close();
        }
    }
}
