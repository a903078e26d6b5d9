package dev.strait.proxy.compression;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.HandlerDecorator;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpVersion;

/**
 * A rule with {@code compression}: its action answers through a {@link CompressingExchange}, which sends the
 * answers of the rule's media types gzip-compressed to clients whose {@code Accept-Encoding} takes gzip (ADR 0094).
 * Made with the table around the action, inside its pacing (a {@code responseRate} counts the bytes that go out).
 */
public final class CompressionHandler extends HandlerDecorator {
    /** A rule's settings, compiled. */
    record Policy(MediaTypes types, long minBytes, int level) {}

    private final Policy policy;

    private CompressionHandler(Handler inner, Policy policy) {
        super(inner);
        this.policy = policy;
    }

    /** {@code handler} with the rule's compression, or {@code handler} itself for a rule without. */
    public static Handler wrap(Handler handler, Route.Compression compression) {
        return compression == null ? handler : new CompressionHandler(handler,
                new Policy(new MediaTypes(compression.types()), compression.minBytes(), compression.level()));
    }

    @Override
    public void handle(Exchange ex) {
        inner.handle(new CompressingExchange(ex, policy, takesGzip(ex)));
    }

    /**
     * Whether the request may get a compressed answer: its client takes gzip, it is not HEAD (whose answer keeps
     * the {@code Content-Length} of the uncompressed body, as nginx's) and not HTTP/1.0 (a compressed stream of
     * unknown length would need the connection closed at its end; nginx's {@code gzip_http_version 1.1}).
     */
    private static boolean takesGzip(Exchange ex) {
        if (ex.isHead() || ex.request().protocolVersion() == HttpVersion.HTTP_1_0) {
            return false;
        }
        HttpHeaders h = ex.request().headers();
        java.util.List<String> all = h.getAll(HttpHeaderNames.ACCEPT_ENCODING);
        return !all.isEmpty() && AcceptEncoding.takesGzip(all.size() == 1 ? all.get(0) : String.join(",", all));
    }

    @Override
    protected Handler around(Handler bound) {
        return new CompressionHandler(bound, policy);
    }
}
