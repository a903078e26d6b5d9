package dev.strait.proxy.fastcgi;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted FastCGI application on a loopback port, for what php-fpm will not do on demand: protocol
 * statuses, broken heads, connections dropped at chosen moments, answers that never come. One thread per
 * connection, reading requests with plain blocking I/O, written independently of the proxy's codec.
 */
final class FakeFastCgi implements AutoCloseable {
    /** What the application does with one request: write records to {@code out}, or close the socket. */
    @FunctionalInterface
    interface Script {
        void answer(Request request, OutputStream out, Socket socket) throws Exception;
    }

    record Request(int connection, int number, boolean keepConn, Map<String, String> params, byte[] stdin) {
        String stdinText() {
            return new String(stdin, StandardCharsets.ISO_8859_1);
        }
    }

    private final ServerSocket server;
    private final Script script;
    private final Thread acceptor;
    final List<Request> requests = new CopyOnWriteArrayList<>();
    final AtomicInteger accepted = new AtomicInteger();
    final AtomicInteger open = new AtomicInteger();
    final AtomicInteger mostOpen = new AtomicInteger();
    /** Connections whose peer (the proxy) closed them. */
    final AtomicInteger closedByProxy = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** While closed, connections are accepted but nothing is read from them (the proxy's writes back up). */
    volatile java.util.concurrent.CountDownLatch readGate = new java.util.concurrent.CountDownLatch(0);

    FakeFastCgi(Script script) throws IOException {
        this.server = new ServerSocket();
        // Small buffers on the application's side, so what is in flight waits in the proxy's buffers.
        server.setReceiveBufferSize(64 * 1024);
        server.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        this.script = script;
        this.acceptor = new Thread(this::accept, "fake-fastcgi-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setSendBufferSize(64 * 1024);
                sockets.add(s);
                int n = accepted.incrementAndGet();
                mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
                Thread t = new Thread(() -> serve(s, n), "fake-fastcgi-" + n);
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s, int connection) {
        try (s) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            int number = 0;
            while (true) {
                readGate.await();
                Request r = readRequest(in, connection, ++number);
                if (r == null) {
                    closedByProxy.incrementAndGet();
                    return;
                }
                requests.add(r);
                script.answer(r, out, s);
                out.flush();
                if (s.isClosed() || !r.keepConn()) {
                    return;
                }
            }
        } catch (Exception e) {
            // the test decides what a dropped connection means
        } finally {
            open.decrementAndGet();
        }
    }

    /** One request: BEGIN_REQUEST, PARAMS up to the empty record, STDIN up to the empty record. */
    private static Request readRequest(DataInputStream in, int connection, int number) throws IOException {
        boolean keepConn = false;
        Map<String, String> params = new LinkedHashMap<>();
        ByteArrayOutputStream paramBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream stdin = new ByteArrayOutputStream();
        boolean begun = false;
        boolean paramsDone = false;
        while (true) {
            int version;
            try {
                version = in.readUnsignedByte();
            } catch (EOFException e) {
                return null;
            }
            int type = in.readUnsignedByte();
            in.readUnsignedShort();
            int len = in.readUnsignedShort();
            int pad = in.readUnsignedByte();
            in.readUnsignedByte();
            byte[] content = in.readNBytes(len);
            in.readNBytes(pad);
            if (version != 1) {
                throw new IOException("version " + version);
            }
            switch (type) {
                case FastCgiRecords.BEGIN_REQUEST -> {
                    begun = true;
                    keepConn = (content[2] & FastCgiRecords.FLAG_KEEP_CONN) != 0;
                }
                case FastCgiRecords.PARAMS -> {
                    if (len == 0) {
                        paramsDone = true;
                        params.putAll(pairs(paramBytes.toByteArray()));
                    } else {
                        paramBytes.write(content);
                    }
                }
                case FastCgiRecords.STDIN -> {
                    if (len == 0) {
                        if (!begun || !paramsDone) {
                            throw new IOException("STDIN ended before BEGIN_REQUEST and PARAMS");
                        }
                        return new Request(connection, number, keepConn, params, stdin.toByteArray());
                    }
                    stdin.write(content);
                }
                default -> throw new IOException("unexpected record type " + type);
            }
        }
    }

    private static Map<String, String> pairs(byte[] b) {
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0;
        while (i < b.length) {
            int[] nl = length(b, i);
            int[] vl = length(b, nl[1]);
            i = vl[1];
            String name = new String(b, i, nl[0], StandardCharsets.ISO_8859_1);
            i += nl[0];
            String value = new String(b, i, vl[0], StandardCharsets.ISO_8859_1);
            i += vl[0];
            out.put(name, value);
        }
        return out;
    }

    private static int[] length(byte[] b, int i) {
        if ((b[i] & 0x80) == 0) {
            return new int[] {b[i], i + 1};
        }
        int len = (b[i] & 0x7f) << 24 | (b[i + 1] & 0xff) << 16 | (b[i + 2] & 0xff) << 8 | (b[i + 3] & 0xff);
        return new int[] {len, i + 4};
    }

    // ---- writing records ----

    static void record(OutputStream out, int type, byte[] content, int padding) throws IOException {
        out.write(new byte[] {1, (byte) type, 0, 1, (byte) (content.length >> 8), (byte) content.length,
                (byte) padding, 0});
        out.write(content);
        out.write(new byte[padding]);
    }

    static void stdout(OutputStream out, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
        record(out, FastCgiRecords.STDOUT, b, -b.length & 7);
    }

    static void stderr(OutputStream out, String text) throws IOException {
        record(out, FastCgiRecords.STDERR, text.getBytes(StandardCharsets.UTF_8), 0);
    }

    static void end(OutputStream out, int protocolStatus) throws IOException {
        record(out, FastCgiRecords.STDOUT, new byte[0], 0);
        record(out, FastCgiRecords.END_REQUEST, new byte[] {0, 0, 0, 0, (byte) protocolStatus, 0, 0, 0}, 0);
    }

    /** A whole response: the text on STDOUT, then the end. */
    static void respond(OutputStream out, String stdout) throws IOException {
        stdout(out, stdout);
        end(out, FastCgiRecords.REQUEST_COMPLETE);
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
