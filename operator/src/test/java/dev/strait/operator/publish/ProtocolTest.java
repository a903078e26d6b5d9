package dev.strait.operator.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A peer that breaks the protocol gets one {@code error} message, then the connection is closed; it gets no snapshot. */
class ProtocolTest {
    private Fleet fleet;
    private ControlServer server;

    @BeforeEach
    void start() throws Exception {
        fleet = new Fleet(ChannelTest.LOOPBACK);
        fleet.publish(new dev.strait.operator.translate.Translator(ChannelTest.LOOPBACK)
                .translate(dev.strait.operator.translate.Fixtures.inputs()));
        server = new ControlServer(fleet, null, Authenticator.OPEN).start(new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("ack before hello", "{\"type\":\"ack\",\"version\":\"x\"}", "the first message must be hello"),
                Arguments.of("another protocol", "{\"type\":\"hello\",\"protocol\":2,\"node\":{\"ingressClass\":\"strait\"}}",
                        "unsupported protocol 2; this operator speaks 1"),
                Arguments.of("no identity", "{\"type\":\"hello\",\"protocol\":1,\"node\":{}}",
                        "hello needs node: {ingressClass} or {namespace, pod}"),
                Arguments.of("both identities", "{\"type\":\"hello\",\"protocol\":1,\"node\":{\"ingressClass\":\"a\",\"namespace\":\"b\",\"pod\":\"c\"}}",
                        "hello needs node: {ingressClass} or {namespace, pod}"),
                Arguments.of("not JSON", "hello?", null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void refusedWithAReason(String name, String message, String error) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(server.address(), 2000);
            s.setSoTimeout(5000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
            out.writeInt(bytes.length);
            out.write(bytes);
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] reply = new byte[in.readInt()];
            in.readFully(reply);
            String text = new String(reply, StandardCharsets.UTF_8);
            assertThat(text).startsWith("{\"type\":\"error\"");
            if (error != null) {
                assertThat(text).contains(error);
            }
            assertThat(closed(in)).as("closed after the error").isTrue();
        }
        assertThat(fleet.proxies()).isEmpty();
    }

    private static boolean closed(DataInputStream in) throws IOException {
        try {
            in.readByte();
            return false;
        } catch (EOFException e) {
            return true;
        }
    }
}
