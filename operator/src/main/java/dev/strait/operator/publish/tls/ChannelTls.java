package dev.strait.operator.publish.tls;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * The operator's side of the channel's TLS: a serving certificate signed by the channel CA, remade at
 * every start (it lives 90 days), and client certificates asked for but not required, so a proxy may
 * authenticate with one or with a token (see {@code Authenticators}).
 */
public final class ChannelTls {
    private ChannelTls() {}

    public static SslContext server(ChannelPki.Issued ca, List<String> names, Instant now) throws SSLException {
        ChannelPki.Issued serving = ChannelPki.serverCertificate(ca, names, now, Duration.ofDays(90));
        return SslContextBuilder.forServer(serving.key(), serving.certificate(), ca.certificate())
                .trustManager(ca.certificate())
                .clientAuth(ClientAuth.OPTIONAL)
                .protocols("TLSv1.3")
                .build();
    }
}
