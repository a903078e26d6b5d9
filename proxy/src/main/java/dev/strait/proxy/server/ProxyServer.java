package dev.strait.proxy.server;

import dev.strait.model.Config;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.bodyfiles.BodyFiles;
import dev.strait.proxy.cache.ResponseCache;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.tracing.SpanExporter;
import dev.strait.proxy.http.AcceptedOn;
import dev.strait.proxy.http1.Http1RequestDecoder;
import dev.strait.proxy.http1.Http1ServerHandler;
import dev.strait.proxy.http2.H2cUpgrade;
import dev.strait.proxy.http2.Http2Connections;
import dev.strait.proxy.http2.PriorKnowledge;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.passthrough.TlsPassthrough;
import dev.strait.proxy.tls.SniSelector;
import dev.strait.proxy.tls.SniTable;
import dev.strait.proxy.tls.TlsEngine;
import dev.strait.proxy.tls.ocsp.ClientOcsp;
import dev.strait.proxy.tls.ocsp.OcspStaple;
import dev.strait.proxy.tls.ocsp.OcspStapler;
import dev.strait.proxy.upstream.LoopContext;
import dev.strait.proxy.upstream.UpstreamContext;
import dev.strait.proxy.resolve.NameResolution;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.channel.uring.ReadRing;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data plane's sockets and event loops, and the only place that builds a connection's pipeline:
 *
 * <pre>
 *   accept (one listening socket per loop with SO_REUSEPORT)
 *   TLS listener:   SniSelector (certificate by SNI) -> SslHandler -> Alpn: h2 or http/1.1
 *   cleartext:      PriorKnowledge: the HTTP/2 preface means h2c, anything else HTTP/1.1
 *   HTTP/1.1:       [ChunkedWriteHandler under TLS]
 *     -> Http1RequestDecoder   bytes to request heads and body parts, with our limits
 *     -> Http1ServerHandler    checks, route lookup, framing, ordering, keep-alive (and Upgrade: h2c)
 *   HTTP/2:         LingeringClose -> Http2FrameTimeout -> Http2ServerHandler (the codec; each stream an
 *                   Http2Exchange)
 *                   -> Http2ConnectionGuard
 *   routing:        with the table of the listener that accepted the connection (AcceptedOn)
 *   then the rule's Handler    respond / files / backends (proxy: upstream connections on the same loop)
 * </pre>
 */
public final class ProxyServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ProxyServer.class);

    private final Config config;
    private final Serving serving;
    private final ProxyMetrics metrics;
    private final AccessLog accessLog;
    /** Where finished requests' spans go when the config has {@code tracing}. */
    private final SpanExporter spans;
    /** Takes the TLS connections for hosts that routes pass through (their ClientHello names one). */
    private final TlsPassthrough passthrough;
    private final Transport transport;
    private final EventLoopGroup loops;
    private final UpstreamContext upstreams;
    /** Endpoint names, looked up on the loops (the resolver settings are read at start only). */
    private final NameResolution names;
    private final ResponseCache cache;
    private final BodyFiles bodyFiles;
    private final Http2Connections h2;
    private final H2cUpgrade h2cUpgrade;
    /**
     * Keeps the serving certificates' OCSP staples fresh (ADR 0104); made with the first snapshot that staples, so
     * that a proxy which never does (most sidecars) loads none of it.
     */
    private OcspStapler ocsp;
    /** Asks OCSP about client certificates (ADR 0106); made with the first handshake whose policy asks. */
    private volatile ClientOcsp clientOcsp;
    private final ChannelGroup listeners = new DefaultChannelGroup("listeners", GlobalEventExecutor.INSTANCE);
    private final ChannelGroup connections = new DefaultChannelGroup("connections", GlobalEventExecutor.INSTANCE);
    /** Client connections open on all listeners, for limits.maxConnections (the group above is for the drain). */
    private final AtomicInteger admitted = new AtomicInteger();
    private final Map<String, InetSocketAddress> bound = new LinkedHashMap<>();
    /** Each TLS listener's certificates at start: used if a later snapshot lacks the listener (control channel). */
    private final Map<String, SniTable> startTls = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean started;

    public ProxyServer(Config config, Serving serving, ProxyMetrics metrics, AccessLog accessLog) {
        this.config = config;
        this.serving = serving;
        this.metrics = metrics;
        this.accessLog = accessLog;
        this.passthrough = new TlsPassthrough(serving, metrics, accessLog);
        int workers = config.workers() > 0 ? config.workers() : Runtime.getRuntime().availableProcessors();
        boolean auto = config.transport() == Config.Transport.AUTO;
        Transport chosen = Transport.choose(config.transport());
        if (auto && chosen != Transport.IO_URING) {
            log.info("transport auto: io_uring is not available here ({}); using {}", Transport.whyNotIoUring(),
                    chosen.name().toLowerCase(Locale.ROOT));
        }
        EventLoopGroup group;
        try {
            group = loops(workers, chosen);
        } catch (RuntimeException e) {
            if (!auto || chosen != Transport.IO_URING) {
                throw e;
            }
            // The probe made a ring, but one per loop failed (locked-memory limits on older kernels).
            chosen = Transport.fallback();
            log.warn("transport auto: io_uring rings could not be set up ({}); using {}", describe(e),
                    chosen.name().toLowerCase(Locale.ROOT));
            group = loops(workers, chosen);
        }
        this.transport = chosen;
        this.loops = group;
        this.names = new NameResolution(serving.snapshot().config().resolver(), transport::datagramChannel,
                transport.socketChannel());
        this.bodyFiles = new BodyFiles(serving.snapshot().config().requestBodyFiles());
        this.upstreams = new UpstreamContext(loops, transport.socketChannel(), transport.readRing(), metrics, names, bodyFiles);
        this.cache = new ResponseCache(serving.snapshot().config().cache().maxBytes(),
                metrics == null ? null : metrics.registry());
        this.spans = new SpanExporter(serving, metrics == null ? null : metrics.registry());
        this.h2 = new Http2Connections(serving, metrics, accessLog);
        this.h2cUpgrade = new H2cUpgrade(h2);
    }

    /** Has the stapler follow a snapshot's OCSP staples; makes it with the first snapshot that has any. */
    private synchronized void followStaples(Snapshot snapshot) {
        List<OcspStaple> staples = snapshot.tls().staples();
        if (ocsp == null) {
            if (staples.isEmpty()) {
                return;
            }
            OcspStapler made = new OcspStapler();
            if (metrics != null) {
                metrics.ocspStapling(made::stapled, made::unstapled, made::goodAnswers, made::revokedAnswers,
                        made::failedFetches);
            }
            ocsp = made;
        }
        ocsp.follow(staples);
    }

    /** The client-certificate OCSP checker, made when first wanted (few configs ask it). */
    private ClientOcsp clientOcsp() {
        ClientOcsp c = clientOcsp;
        return c != null ? c : makeClientOcsp();
    }

    private synchronized ClientOcsp makeClientOcsp() {
        if (clientOcsp == null) {
            ClientOcsp made = new ClientOcsp();
            if (metrics != null) {
                metrics.clientOcsp(made::goodAnswers, made::revokedAnswers, made::unknownAnswers, made::failedQuestions,
                        made::keptVerdicts);
            }
            clientOcsp = made;
        }
        return clientOcsp;
    }

    private static EventLoopGroup loops(int workers, Transport transport) {
        return new FatalErrors.Loops(workers, new DefaultThreadFactory("strait-loop", true), transport.ioHandlerFactory());
    }

    /** The response cache all rules with {@code cache} share (purged through the admin server). */
    public ResponseCache cache() {
        return cache;
    }

    public Transport transport() {
        return transport;
    }

    public int workers() {
        return ((MultiThreadIoEventLoopGroup) loops).executorCount();
    }

    /** Requests in flight to upstreams, summed over the loops (each counts its own; for diagnostics). */
    public int upstreamRequestsInFlight() throws InterruptedException, ExecutionException {
        int sum = 0;
        for (EventExecutor loop : loops) {
            sum += loop.submit(LoopContext::upstreamInflightHere).get();
        }
        return sum;
    }

    /** Binds every listener; throws when an address cannot be bound. */
    public ProxyServer start() throws InterruptedException {
        // Upstream pools live on the loops: set them up before the first connection can arrive.
        upstreams.install();
        upstreams.activate(serving.snapshot().upstreams());
        serving.onSwap(s -> upstreams.activate(s.upstreams()));
        cache.install(loops);
        spans.install(loops);
        serving.onSwap(s -> cache.resize(s.config().cache().maxBytes()));
        BodyFiles.checkDirectory(serving.snapshot().config());
        serving.onSwap(s -> {
            bodyFiles.configure(s.config().requestBodyFiles());
            BodyFiles.checkDirectory(s.config());
        });
        if (metrics != null) {
            metrics.requestBodyFiles(bodyFiles::held, bodyFiles::refusals);
        }
        followStaples(serving.snapshot());
        serving.onSwap(this::followStaples);
        if (accessLog != null) {
            // The loops learn which log their requests go to (the request id sent upstream is kept for it).
            accessLog.install(loops, serving);
            if (metrics != null) {
                metrics.accessLogDropped(accessLog::dropped);
            }
        }
        for (Config.Listener l : config.listeners()) {
            if (l.tls() != null) {
                SniTable atStart = serving.snapshot().tls().listener(l.name());
                if (atStart == null) {
                    throw new IllegalStateException("listener " + l.name() + ": no certificates were loaded");
                }
                startTls.put(l.name(), atStart);
                metrics.tlsEngine(TlsEngine.current().label());
            }
            InetSocketAddress want = new InetSocketAddress(l.address().host(), l.address().port());
            InetSocketAddress actual;
            // The listener's own connection count, over all its sockets (one per loop): touched on
            // accept and close only, never per request.
            AtomicInteger open = new AtomicInteger();
            if (transport.reusePort() && want.getPort() != 0) {
                // SO_REUSEPORT would let us share a port another Strait already serves: a plain bind
                // first fails when anything listens there.
                try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
                    probe.setReuseAddress(true);
                    probe.bind(want);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException("listener " + l.name() + ": cannot bind " + l.address()
                            + ": " + e.getMessage(), e);
                }
            }
            if (transport.reusePort()) {
                // One socket per loop; with port 0 the first bind picks the port and the rest share it.
                actual = null;
                for (EventExecutor e : loops) {
                    Channel ch = bind(bootstrap((EventLoop) e, l, open), actual == null ? want : actual, l);
                    listeners.add(ch);
                    actual = actual == null ? (InetSocketAddress) ch.localAddress() : actual;
                }
            } else {
                Channel ch = bind(bootstrap(loops, l, open), want, l);
                listeners.add(ch);
                actual = (InetSocketAddress) ch.localAddress();
            }
            bound.put(l.name(), actual);
            log.info("listener {} on {} ({} {})", l.name(), actual, transport.name().toLowerCase(),
                    transport.reusePort() ? "x" + workers() + " sockets" : "one socket");
        }
        started = true;
        return this;
    }

    private static Channel bind(ServerBootstrap b, InetSocketAddress address, Config.Listener l)
            throws InterruptedException {
        var f = b.bind(address).await();
        if (!f.isSuccess()) {
            throw new IllegalStateException("listener " + l.name() + ": cannot bind " + l.address() + ": "
                    + f.cause().getMessage(), f.cause());
        }
        return f.channel();
    }

    /** Takes a place under {@code cap} (0: no cap) in {@code count}; false, with the place given back, when full. */
    private static boolean admit(AtomicInteger count, int cap) {
        if (count.incrementAndGet() > cap && cap > 0) {
            count.decrementAndGet();
            return false;
        }
        return true;
    }

    private void refuse(Channel ch) {
        metrics.connectionRefused();
        ch.close();
    }

    private ServerBootstrap bootstrap(EventLoopGroup group, Config.Listener listener, AtomicInteger open) {
        boolean readRing = transport.readRing();
        ServerBootstrap b = new ServerBootstrap()
                .group(group, group)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 4096)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        var limits = serving.snapshot().limits();
                        // Both caps reserve before they check, so loops accepting at once cannot overshoot.
                        if (!admit(admitted, limits.maxConnections())) {
                            // Over the cap: close before any buffer or handler is spent on it.
                            refuse(ch);
                            return;
                        }
                        if (!admit(open, listener.maxConnections())) {
                            admitted.decrementAndGet(); // over the listener's own cap
                            refuse(ch);
                            return;
                        }
                        // strait_connections_open counts what the caps count: from the accept, through
                        // protocol detection and TLS handshakes (a handshake flood shows), to the close.
                        metrics.connectionOpened();
                        ch.closeFuture().addListener(f -> {
                            admitted.decrementAndGet();
                            open.decrementAndGet();
                            metrics.connectionClosed();
                        });
                        connections.add(ch);
                        if (readRing) {
                            ch.pipeline().addLast(ReadRing.Pause.NAME, new ReadRing.Pause()); // first: see ReadRing
                        }
                        // The HTTP layers route with this listener's table (routes may name listeners).
                        ch.attr(AcceptedOn.KEY).set(listener.name());
                        if (listener.proxyProtocol()) {
                            // The load balancer's header first: it names the client the rest will see.
                            ch.pipeline().addLast(ProxyProtocolReader.DECODER, new HAProxyMessageDecoder())
                                    .addLast("proxy-protocol", new ProxyProtocolReader(
                                            serving.snapshot().limits().headerTimeout().toMillis(),
                                            () -> protocols(ch, listener)));
                        } else {
                            protocols(ch, listener);
                        }
                    }
                });
        if (transport.reusePort()) {
            transport.setReusePort(b);
        }
        if (readRing) {
            ReadRing.forAccepted(b);
        }
        return b;
    }

    /** The listener's protocol handlers: TLS, or cleartext HTTP/1.1 and h2c. */
    private void protocols(Channel ch, Config.Listener listener) {
        if (listener.tls() != null) {
            initTls(ch, listener.name());
        } else {
            // Cleartext: HTTP/1.1, or h2c with prior knowledge (the preface) or by Upgrade.
            ch.pipeline().addLast("detect", new PriorKnowledge((ctx, h2) -> {
                if (h2) {
                    http2(ctx.pipeline());
                } else {
                    http1(ctx.pipeline(), true, h2cUpgrade);
                }
            }, serving.snapshot().limits().headerTimeout().toMillis()));
        }
    }

    /**
     * A TLS connection: the SNI name picks the certificate from the listener's table in the snapshot
     * serving at handshake time, then ALPN picks the protocol.
     */
    private void initTls(Channel ch, String listener) {
        long handshakeTimeout = serving.snapshot().limits().headerTimeout().toMillis();
        ch.pipeline()
                .addLast("sni", new SniSelector(() -> tlsTable(listener), handshakeTimeout, passthrough, this::clientOcsp))
                .addLast("alpn", new Alpn());
    }

    private SniTable tlsTable(String listener) {
        SniTable t = serving.snapshot().tls().listener(listener);
        return t != null ? t : startTls.get(listener);
    }

    /** Chooses the protocol from what ALPN negotiated; no ALPN at all means HTTP/1.1. */
    private final class Alpn extends ApplicationProtocolNegotiationHandler {
        Alpn() {
            super(ApplicationProtocolNames.HTTP_1_1);
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                http2(ctx.pipeline());
            } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
                // Files go out in chunks through the SslHandler: no sendfile under TLS.
                ctx.pipeline().addLast("chunked", new ChunkedWriteHandler());
                http1(ctx.pipeline(), false, null);
            } else {
                log.debug("{}: unexpected ALPN protocol {}", ctx.channel().remoteAddress(), protocol);
                ctx.close();
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt == Http1ServerHandler.DrainEvent.INSTANCE) {
                ctx.close(); // draining while the handshake is still going on: no request in flight yet
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
            // Scanners and clients that distrust the certificate do this all day: not worth a warning.
            log.debug("{}: TLS handshake failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }
    }

    private void http1(ChannelPipeline p, boolean zeroCopy, H2cUpgrade h2c) {
        Http1RequestDecoder decoder = new Http1RequestDecoder(serving.snapshot().limits());
        p.addLast("http1-decoder", decoder)
                .addLast("http1", new Http1ServerHandler(serving, metrics, accessLog, decoder, zeroCopy, h2c));
    }

    /** HTTP/2: frames, flow control and the streams, then the connection's guard (see Http2Connections). */
    private void http2(ChannelPipeline p) {
        p.addLast("h2-linger", h2.lingeringClose())
                .addLast("h2-frames", h2.frameTimeout())
                .addLast("h2", h2.handler())
                .addLast("h2-connection", h2.guard());
    }

    /** The address a listener is bound to (the real port when configured with port 0). */
    public InetSocketAddress address(String listener) {
        return bound.get(listener);
    }

    /** How many listening sockets are open (one per loop and listener with SO_REUSEPORT). */
    public int listenerSockets() {
        return listeners.size();
    }

    public boolean ready() {
        return started && !serving.draining();
    }

    public int openConnections() {
        return connections.size();
    }

    /**
     * Graceful stop: no new connections, idle keep-alive connections closed, busy ones closed after
     * their current response; returns when all are gone or the timeout passed.
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        serving.startDraining();
        listeners.close().await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        List<Channel> open = new ArrayList<>(connections);
        for (Channel ch : open) {
            ch.pipeline().fireUserEventTriggered(Http1ServerHandler.DrainEvent.INSTANCE);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!connections.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        boolean clean = connections.isEmpty();
        if (!clean) {
            log.warn("drain timeout {}: closing {} connection(s) with requests in flight", timeout, connections.size());
        }
        return clean;
    }

    @Override
    public void close() {
        listeners.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        upstreams.close();
        names.close();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        cache.close(); // after the loops: no answer is being set up from an entry any more
        spans.close(); // after the loops too: the last requests' spans are queued
        synchronized (this) {
            if (ocsp != null) {
                ocsp.close();
            }
            if (clientOcsp != null) {
                clientOcsp.close();
            }
        }
    }

    /**
     * An exception with the causes under it: Netty's "failed to create a child event loop" says nothing
     * by itself, the reason is two causes down.
     */
    public static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(String.valueOf(e));
        for (Throwable c = e.getCause(); c != null && c != e; e = c, c = c.getCause()) {
            b.append(": caused by ").append(c);
        }
        return b.toString();
    }
}
