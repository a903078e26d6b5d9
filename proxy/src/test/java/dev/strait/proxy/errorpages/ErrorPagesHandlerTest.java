package dev.strait.proxy.errorpages;

import static dev.strait.proxy.testing.TestServing.ascii;
import static dev.strait.proxy.testing.TestServing.outbound;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http1.Http1RequestDecoder;
import dev.strait.proxy.http1.Http1ServerHandler;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.RouteTableBuilder;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When an error page is fetched, on the real HTTP/1.1 pipeline (EmbeddedChannel): the rule's action answers
 * when the test says, so that its client can leave first, which sockets cannot time.
 */
class ErrorPagesHandlerTest {
    /** Exchanges the action holds until the test answers them. */
    private final List<Exchange> waiting = new ArrayList<>();
    /** The page fetches made, each answered at once. */
    private final List<Exchange> fetched = new ArrayList<>();
    private EmbeddedChannel ch;

    @BeforeEach
    void start() throws Exception {
        Config config = ConfigParser.parse("""
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                upstreams: [ { name: pages, endpoints: [ "127.0.0.1:9" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - respond: { body: placeholder }
                        errorPages: { statuses: [ 404 ], upstream: pages }
                """, "test");
        Route.ErrorPages pagesConfig = config.routes().get(0).rules().get(0).errorPages();
        Handler pages = page -> {
            fetched.add(page);
            page.send(HttpResponseStatus.OK, new DefaultHttpHeaders().set("content-type", "text/html"),
                    Unpooled.copiedBuffer("the page", StandardCharsets.US_ASCII));
        };
        var table = RouteTableBuilder.build(config,
                (action, path) -> ErrorPagesHandler.wrap(waiting::add, pagesConfig, pages));
        Serving serving = new Serving(new Snapshot(config, table, config.limits(), false));
        Http1RequestDecoder decoder = new Http1RequestDecoder(config.limits());
        ch = new EmbeddedChannel(decoder, new Http1ServerHandler(serving, new ProxyMetrics(), null, decoder, true));
    }

    @AfterEach
    void noLeftovers() {
        ch.finishAndReleaseAll();
    }

    @Test
    void aHeldBackAnswerGetsItsPageWithItsStatus() {
        ch.writeInbound(ascii("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"));
        waiting.get(0).sendError(HttpResponseStatus.NOT_FOUND);
        ch.runPendingTasks();

        assertThat(fetched).hasSize(1);
        String out = outbound(ch);
        assertThat(out).startsWith("HTTP/1.1 404 ").contains("content-type: text/html").endsWith("the page");
    }

    /** Nothing would ever cancel a fetch for a client already gone: it is not made (the leak CI once found). */
    @Test
    void noPageIsFetchedForAClientThatLeftBeforeTheAnswer() {
        ch.writeInbound(ascii("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"));
        Exchange ex = waiting.get(0);
        ch.close();
        assertThat(ex.clientGone()).isTrue();

        ex.sendError(HttpResponseStatus.NOT_FOUND); // the action answers late, as one that ignores cancels would
        ch.runPendingTasks();

        assertThat(fetched).isEmpty();
        assertThat(outbound(ch)).isEmpty();
    }
}
