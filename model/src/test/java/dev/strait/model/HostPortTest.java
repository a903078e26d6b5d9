package dev.strait.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class HostPortTest {

    static Stream<Arguments> valid() {
        return Stream.of(
                Arguments.of("127.0.0.1:8080", "127.0.0.1", 8080),
                Arguments.of("0.0.0.0:0", "0.0.0.0", 0),
                Arguments.of("localhost:65535", "localhost", 65535),
                Arguments.of("example.com:443", "example.com", 443),
                Arguments.of("svc.ns.svc.cluster.local:80", "svc.ns.svc.cluster.local", 80),
                Arguments.of("[::1]:9901", "::1", 9901),
                Arguments.of("[::]:8080", "::", 8080),
                Arguments.of("[2001:db8::1]:443", "2001:db8::1", 443),
                Arguments.of("[fe80::1%eth0]:80", "fe80::1%eth0", 80),
                Arguments.of("[::ffff:127.0.0.1]:1", "::ffff:127.0.0.1", 1));
    }

    @ParameterizedTest
    @MethodSource("valid")
    void parses(String text, String host, int port) {
        HostPort hp = HostPort.parse(text);
        assertThat(hp.host()).isEqualTo(host);
        assertThat(hp.port()).isEqualTo(port);
    }

    @ParameterizedTest
    @MethodSource("valid")
    void toStringRoundTrips(String text, String host, int port) {
        HostPort hp = HostPort.parse(text);
        assertThat(hp).hasToString(text);
        assertThat(HostPort.parse(hp.toString())).isEqualTo(hp);
    }

    @Test
    void ipv6IsWrittenInBrackets() {
        assertThat(new HostPort("::1", 80)).hasToString("[::1]:80");
        assertThat(new HostPort("2001:db8::1", 443)).hasToString("[2001:db8::1]:443");
        assertThat(new HostPort("10.0.0.1", 80)).hasToString("10.0.0.1:80");
        assertThat(new HostPort("example.com", 80)).hasToString("example.com:80");
    }

    @Test
    void bracketsAroundANameAreDropped() {
        HostPort hp = HostPort.parse("[localhost]:80");
        assertThat(hp).isEqualTo(new HostPort("localhost", 80));
        assertThat(hp).hasToString("localhost:80");
    }

    @Test
    void equalityIsByValue() {
        assertThat(HostPort.parse("[::1]:80")).isEqualTo(new HostPort("::1", 80));
        assertThat(HostPort.parse("a:1")).isNotEqualTo(HostPort.parse("a:2"));
        assertThat(HostPort.parse("a:1")).hasSameHashCodeAs(HostPort.parse("a:1"));
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {" ", "\t"})
    void refusesBlank(String text) {
        assertThatThrownBy(() -> HostPort.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("must be host:port");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "localhost         | must be host:port, got \"localhost\"",
            ":80               | must be host:port, got \":80\"",
            "::1               | must be host:port, got \"::1\"",
            "::1:80            | must be host:port, got \"::1:80\"",
            "2001:db8::1:443   | must be host:port",
            "a:b:c             | must be host:port",
            "[::1]             | must be [ipv6]:port, got \"[::1]\"",
            "[::1]80           | must be [ipv6]:port, got \"[::1]80\"",
            "[::1              | must be [ipv6]:port",
            "[::1]:            | port must be a number 0..65535, got \"\"",
            "[]:80             | must be [ipv6]:port, got \"[]:80\"",
            "host:             | port must be a number 0..65535, got \"\"",
            "host:http         | port must be a number 0..65535, got \"http\"",
            "host:8o           | port must be a number 0..65535",
            "host:1.5          | port must be a number 0..65535",
            "host:+80          | port must be a number 0..65535, got \"+80\"",
            "host: 80          | port must be a number 0..65535",
            "host:99999999999  | port must be a number 0..65535",
            "host:65536        | port must be 0..65535, got 65536",
            "host:70000        | port must be 0..65535, got 70000",
            "host:-1           | port must be a number 0..65535, got \"-1\"",
            "[::1]:65536       | port must be 0..65535, got 65536",
    })
    void refusesBadAddresses(String text, String message) {
        assertThatThrownBy(() -> HostPort.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void anEndpointMayBeAUnixSocket() {
        HostPort sock = HostPort.parseEndpoint("unix:/run/php/php8.2-fpm.sock");
        assertThat(sock).isEqualTo(new HostPort("/run/php/php8.2-fpm.sock", 0));
        assertThat(sock.isUnixSocket()).isTrue();
        assertThat(sock).hasToString("unix:/run/php/php8.2-fpm.sock");
        assertThat(HostPort.parseEndpoint(sock.toString())).isEqualTo(sock);
        assertThat(HostPort.parseEndpoint("127.0.0.1:9000")).isEqualTo(new HostPort("127.0.0.1", 9000));
        assertThat(HostPort.parseEndpoint("[::1]:9000").isUnixSocket()).isFalse();
        assertThat(HostPort.parseEndpoint("unix:/" + "a".repeat(106)).host()).hasSize(107);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "unix:               | a unix socket is an absolute file path",
            "unix:run/php.sock   | a unix socket is an absolute file path (unix:/run/app.sock), got \"unix:run/php.sock\"",
            "unix:/run/php/      | a unix socket is an absolute file path",
    })
    void refusesBadUnixSockets(String text, String message) {
        assertThatThrownBy(() -> HostPort.parseEndpoint(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void aUnixSocketsPathIsMeasuredInBytesAndHasNoControlCharacters() {
        // A slash and 53 two-byte characters: 107 bytes, what sun_path holds; one more is too many.
        assertThat(HostPort.parseEndpoint("unix:/" + "\u00e9".repeat(53)).isUnixSocket()).isTrue();
        assertThatThrownBy(() -> HostPort.parseEndpoint("unix:/" + "\u00e9".repeat(54)))
                .hasMessage("a unix socket's path holds at most 107 bytes, got 109");
        assertThatThrownBy(() -> HostPort.parseEndpoint("unix:/a\tb")).hasMessageContaining("control characters");
    }

    @Test
    void onlyEndpointsMayBeUnixSockets() {
        assertThatThrownBy(() -> HostPort.parse("unix:/run/strait.sock"))
                .hasMessageStartingWith("must be host:port (unix sockets are for upstreams' endpoints)");
    }
}
