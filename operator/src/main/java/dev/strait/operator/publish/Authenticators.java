package dev.strait.operator.publish;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * How proxies prove who they are. A proxy that presents a client certificate signed by the channel CA
 * is who its common name says ({@code ingress.CLASS} or {@code sidecar.NAMESPACE.POD}). Otherwise its
 * {@code hello} must carry a projected service-account token (audience {@value #AUDIENCE}), checked
 * with a TokenReview: a sidecar's service account must be in the namespace it claims (and, when the
 * token is bound to a pod, be that pod); an ingress proxy's service account must be in one of the
 * namespaces allowed to run ingress proxies (the operator's own by default). Anything else gets nothing.
 */
public final class Authenticators {
    public static final String AUDIENCE = "strait-control";
    private static final String POD_NAME_CLAIM = "authentication.kubernetes.io/pod-name";

    private Authenticators() {}

    /** Client certificate first, then token. */
    public static Authenticator certificateOrToken(KubernetesClient client, Set<String> ingressNamespaces, Executor executor) {
        Authenticator token = tokenReview(client, ingressNamespaces, executor);
        return (channel, identity, t) -> {
            String cn = peerCommonName(channel);
            if (cn != null) {
                return CompletableFuture.completedFuture(cn.equals(commonName(identity)) ? null
                        : "the client certificate is for " + cn + ", not " + commonName(identity));
            }
            return token.check(channel, identity, t);
        };
    }

    /** The common name a proxy's client certificate must carry. */
    public static String commonName(ProxyIdentity id) {
        return id.sidecar() ? "sidecar." + id.namespace() + "." + id.pod() : "ingress." + id.ingressClass();
    }

    public static Authenticator tokenReview(KubernetesClient client, Set<String> ingressNamespaces, Executor executor) {
        return (channel, identity, token) -> {
            if (token == null || token.isEmpty()) {
                return CompletableFuture.completedFuture("unauthenticated: present a client certificate or a"
                        + " service-account token (audience " + AUDIENCE + ")");
            }
            return CompletableFuture.supplyAsync(() -> review(client, ingressNamespaces, identity, token), executor);
        };
    }

    static String review(KubernetesClient client, Set<String> ingressNamespaces, ProxyIdentity identity, String token) {
        TokenReview review = client.resource(new TokenReviewBuilder().withNewSpec().withToken(token)
                .withAudiences(AUDIENCE).endSpec().build()).create();
        if (review.getStatus() == null || !Boolean.TRUE.equals(review.getStatus().getAuthenticated())) {
            String why = review.getStatus() == null ? null : review.getStatus().getError();
            return "unauthenticated: the token was not accepted" + (why == null || why.isEmpty() ? "" : " (" + why + ")");
        }
        UserInfo user = review.getStatus().getUser();
        String name = user == null ? "" : String.valueOf(user.getUsername());
        String[] parts = name.split(":");
        if (parts.length != 4 || !parts[0].equals("system") || !parts[1].equals("serviceaccount")) {
            return "forbidden: " + name + " is not a service account";
        }
        String ns = parts[2];
        if (identity.sidecar()) {
            if (!ns.equals(identity.namespace())) {
                return "forbidden: service account " + name + " cannot be a sidecar in namespace " + identity.namespace();
            }
            List<String> pod = user.getExtra() == null ? null : user.getExtra().get(POD_NAME_CLAIM);
            if (pod != null && !pod.isEmpty() && !pod.get(0).equals(identity.pod())) {
                return "forbidden: the token belongs to pod " + pod.get(0) + ", not " + identity.pod();
            }
            return null;
        }
        return ingressNamespaces.contains(ns) ? null
                : "forbidden: service account " + name + " may not serve ingress class " + identity.ingressClass();
    }

    private static String peerCommonName(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return null;
        }
        try {
            Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            if (chain.length == 0 || !(chain[0] instanceof X509Certificate x)) {
                return null;
            }
            for (Rdn rdn : new LdapName(x.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return String.valueOf(rdn.getValue());
                }
            }
            return null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        } catch (javax.naming.InvalidNameException e) {
            return null;
        }
    }
}
