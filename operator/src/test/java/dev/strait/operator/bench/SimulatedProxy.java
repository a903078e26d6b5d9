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
 * A proxy reduced to its channel: says hello, reads each snapshot frame, notes when each version arrived
 * and ACKs it without building a table (a hundred real tables would measure the machine, not the
 * operator). One thread with a blocking socket.
 */
final class SimulatedProxy implements AutoCloseable {
    private static final Pattern VERSION = Pattern.compile("\"version\":\"([0-9a-f]+)\"");

    final Map<String, Long> arrived = new ConcurrentHashMap<>();
    private final Socket socket;
    private final Thread reader;

    SimulatedProxy(InetSocketAddress operator, String ingressClass) throws IOException {
        socket = new Socket();
        socket.connect(operator, 5000);
        socket.setTcpNoDelay(true);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        send(out, "{\"type\":\"hello\",\"protocol\":1,\"node\":{\"ingressClass\":\"" + ingressClass + "\"}}");
        DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream(), 1 << 16));
        reader = new Thread(() -> {
            try {
                while (true) {
                    byte[] frame = new byte[in.readInt()];
                    in.readFully(frame);
                    long now = System.nanoTime();
                    String head = new String(frame, 0, Math.min(frame.length, 80), StandardCharsets.UTF_8);
                    Matcher m = VERSION.matcher(head);
                    if (head.startsWith("{\"type\":\"snapshot\"") && m.find()) {
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
    }
}
