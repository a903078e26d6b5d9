package dev.strait.operator.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A proxy reduced to its channel: says hello, reads each snapshot (or delta) frame, notes when each
 * version arrived and ACKs it without building a table (a hundred real tables would measure the machine,
 * not the operator). With {@code deltas} it announces {@code features: ["delta"]} as real proxies do, so
 * after the first snapshot it is sent deltas; it ACKs a delta without applying it (the operator checks
 * each delta against its target before sending). One thread with a blocking socket.
 */
final class SimulatedProxy implements AutoCloseable {
    private static final Pattern VERSION = Pattern.compile("\"version\":\"([0-9a-f]+)\"");

    final Map<String, Long> arrived = new ConcurrentHashMap<>();
    private final Socket socket;
    private final Thread reader;
    private final Thread pinger;

    SimulatedProxy(InetSocketAddress operator, String ingressClass, boolean deltas) throws IOException {
        socket = new Socket();
        socket.connect(operator, 5000);
        socket.setTcpNoDelay(true);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        send(out, "{\"type\":\"hello\",\"protocol\":1,\"node\":{\"ingressClass\":\"" + ingressClass + "\"}"
                + (deltas ? ",\"features\":[\"delta\"]}" : "}"));
        DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream(), 1 << 16));
        reader = new Thread(() -> {
            try {
                while (true) {
                    byte[] frame = new byte[in.readInt()];
                    in.readFully(frame);
                    long now = System.nanoTime();
                    // Both start with their type, then (a delta) its base, then the version they carry.
                    String head = new String(frame, 0, Math.min(frame.length, 120), StandardCharsets.UTF_8);
                    Matcher m = VERSION.matcher(head);
                    if ((head.startsWith("{\"type\":\"snapshot\"") || head.startsWith("{\"type\":\"delta\""))
                            && m.find()) {
                        arrived.putIfAbsent(m.group(1), now);
                        send(out, "{\"type\":\"ack\",\"version\":\"" + m.group(1) + "\"}");
                    }
                }
            } catch (IOException e) {
                // closed
            }
        }, "sim-proxy");
        reader.setDaemon(true);
        reader.start();
        // The channel's liveness rule: the operator closes a peer it has not heard from for 30 s, and a
        // proxy pings after 10 s of sending nothing. Without this the fleet shrank to the real proxy
        // whenever the start-up status writes took longer than 30 s (the 10k case).
        pinger = new Thread(() -> {
            try {
                while (!socket.isClosed()) {
                    Thread.sleep(10_000); // the protocol's ping period, not a test's wait
                    send(out, "{\"type\":\"ping\"}");
                }
            } catch (IOException | InterruptedException e) {
                // closed
            }
        }, "sim-proxy-ping");
        pinger.setDaemon(true);
        pinger.start();
    }

    private static synchronized void send(DataOutputStream out, String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
        pinger.interrupt();
    }
}
