package dev.strait.operator.publish;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A proxy on the channel by hand: says hello, then answers every snapshot or delta as a test wants. */
public final class RawProxy implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Socket socket;
    private final DataOutputStream out;
    private Thread reader;

    private RawProxy(Socket socket) throws IOException {
        this.socket = socket;
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    /** Connected and said hello as an ingress proxy of {@code ingressClass}. */
    public static RawProxy connect(InetSocketAddress operator, String ingressClass) throws IOException {
        Socket s = new Socket();
        s.connect(operator, 2000);
        RawProxy p = new RawProxy(s);
        p.send(JSON.createObjectNode().put("type", "hello").put("protocol", 1)
                .set("node", JSON.createObjectNode().put("ingressClass", ingressClass)));
        return p;
    }

    /** From now on, every update is refused with {@code error}. */
    public void nackEverything(String error) {
        reader = new Thread(() -> {
            try {
                DataInputStream in = new DataInputStream(socket.getInputStream());
                while (true) {
                    byte[] frame = new byte[in.readInt()];
                    in.readFully(frame);
                    JsonNode m = JSON.readTree(frame);
                    String type = m.path("type").asText();
                    if (type.equals("snapshot") || type.equals("delta")) {
                        send(JSON.createObjectNode().put("type", "nack").put("version", m.path("version").asText())
                                .put("error", error));
                    }
                }
            } catch (IOException e) {
                // closed
            }
        }, "raw-proxy");
        reader.setDaemon(true);
        reader.start();
    }

    private synchronized void send(JsonNode message) throws IOException {
        byte[] bytes = JSON.writeValueAsString(message).getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
