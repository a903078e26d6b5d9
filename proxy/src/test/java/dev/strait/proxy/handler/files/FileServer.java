package dev.strait.proxy.handler.files;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import dev.strait.model.Limits;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.handler.Handlers;
import dev.strait.proxy.http1.Http1RequestDecoder;
import dev.strait.proxy.http1.Http1ServerHandler;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.RouteTableBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The real HTTP/1.1 server side (decoder and server handler) with one {@code files} rule, in an
 * {@link EmbeddedChannel}: raw request bytes in, parsed responses out. Every buffer and file region
 * read is released here, and {@link #close()} asserts that nothing was left behind.
 */
final class FileServer implements AutoCloseable {
    final EmbeddedChannel channel;
    final FileHandler handler;
    /** How the bodies of large files went out so far: file regions, and slices of a mapping (ADR 0034). */
    int fileRegions;
    int mappedBodies;

    private FileServer(EmbeddedChannel channel, FileHandler handler) {
        this.channel = channel;
        this.handler = handler;
    }

    /** A rule answering every path of any host from {@code root}, zero-copy (file regions). */
    static FileServer start(Path root) {
        return start(root, "", true);
    }

    /**
     * @param options  extra flow-style keys for the {@code files} action, e.g. {@code ", followSymlinks: true"}
     * @param zeroCopy file regions when true; chunks through a {@link ChunkedWriteHandler} when false
     */
    static FileServer start(Path root, String options, boolean zeroCopy) {
        return startYaml("""
                listeners: [ { name: http, address: "127.0.0.1:8080" } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - files: { root: '%s'%s }
                """.formatted(root, options), zeroCopy);
    }

    static FileServer startYaml(String yaml, boolean zeroCopy) {
        Config config;
        try {
            config = ConfigParser.parse(yaml, "test");
        } catch (InvalidConfigException e) {
            throw new AssertionError(e);
        }
        List<FileHandler> made = new ArrayList<>();
        var table = RouteTableBuilder.build(config, (action, path) -> {
            Handler h = Handlers.create(action, path);
            if (h instanceof FileHandler f) {
                made.add(f);
            }
            return h;
        });
        Serving serving = new Serving(new Snapshot(config, table, config.limits(), false));
        Http1RequestDecoder decoder = new Http1RequestDecoder(Limits.DEFAULTS);
        Http1ServerHandler server = new Http1ServerHandler(serving, new ProxyMetrics(), null, decoder, zeroCopy);
        ChannelHandler[] pipeline = zeroCopy
                ? new ChannelHandler[] {decoder, server}
                : new ChannelHandler[] {new ChunkedWriteHandler(), decoder, server};
        return new FileServer(new EmbeddedChannel(pipeline), made.isEmpty() ? null : made.get(0));
    }

    Response get(String path, String... headerLines) {
        return request("GET", path, headerLines);
    }

    Response head(String path, String... headerLines) {
        return request("HEAD", path, headerLines);
    }

    Response request(String method, String target, String... headerLines) {
        StringBuilder sb = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: x\r\n");
        for (String h : headerLines) {
            sb.append(h).append("\r\n");
        }
        return raw(sb.append("\r\n").toString());
    }

    /** Writes one raw request and reads back one response. */
    Response raw(String request) {
        channel.writeInbound(Unpooled.copiedBuffer(request, US_ASCII));
        channel.runPendingTasks();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int messages = 0;
        for (Object msg; (msg = channel.readOutbound()) != null; messages++) {
            if (msg instanceof ByteBuf buf) {
                boolean empty = buf.capacity() == 0;
                byte[] bytes = new byte[buf.readableBytes()];
                buf.readBytes(bytes);
                out.writeBytes(bytes);
                if (buf.isReadOnly() && buf.isDirect()) {
                    mappedBodies++; // only a file's mapping is a read-only direct buffer here
                }
                // A loop's shared answer (SharedAnswers) or a file's mapping: its owner keeps one reference.
                boolean shared = buf.unwrap() != null;
                boolean freed = buf.release();
                if (!empty) {
                    assertThat(freed || shared && buf.refCnt() == 1).as("buffer released by its last holder").isTrue();
                }
            } else if (msg instanceof FileRegion region) {
                fileRegions++;
                try {
                    WritableByteChannel sink = Channels.newChannel(out);
                    while (region.transferred() < region.count()) {
                        region.transferTo(sink, region.transferred());
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    assertThat(region.release()).as("file region released by its last holder").isTrue();
                }
            } else {
                throw new AssertionError("unexpected outbound message " + msg);
            }
        }
        assertThat(messages).as("outbound messages for " + request.lines().findFirst().orElse("")).isPositive();
        return Response.parse(out.toByteArray());
    }

    @Override
    public void close() {
        assertThat(channel.finishAndReleaseAll()).as("messages left in the channel").isFalse();
    }

    /** One parsed response; header names are lower-cased. */
    record Response(int status, String statusLine, Map<String, List<String>> headers, byte[] body) {
        static Response parse(byte[] bytes) {
            String all = new String(bytes, ISO_8859_1);
            int end = all.indexOf("\r\n\r\n");
            assertThat(end).as("end of head in %s", all).isPositive();
            String[] lines = all.substring(0, end).split("\r\n");
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.computeIfAbsent(lines[i].substring(0, colon).toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                        .add(lines[i].substring(colon + 1).trim());
            }
            byte[] body = new byte[bytes.length - end - 4];
            System.arraycopy(bytes, end + 4, body, 0, body.length);
            return new Response(Integer.parseInt(lines[0].substring(9, 12)), lines[0], headers, body);
        }

        /** The single value of a header, or null; fails if it appears more than once. */
        String header(String name) {
            List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
            if (v == null) {
                return null;
            }
            assertThat(v).as("values of " + name).hasSize(1);
            return v.get(0);
        }

        String text() {
            return new String(body, UTF_8);
        }

        @Override
        public String toString() {
            return statusLine + " " + headers + " (" + body.length + " body bytes)";
        }
    }
}
