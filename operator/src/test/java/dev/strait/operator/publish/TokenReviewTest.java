package dev.strait.operator.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Projected service-account tokens, checked with a TokenReview against fabric8's mock API server. */
@EnableKubernetesMockClient
class TokenReviewTest {
    static KubernetesClient client;
    static KubernetesMockServer server;

    /** The mock's answer per token: authenticated as this user, with an optional pod claim; unknown tokens fail. */
    private static final Map<String, List<String>> USERS = Map.of(
            "ingress-token", List.of("system:serviceaccount:strait-system:strait-proxy"),
            "shop-token", List.of("system:serviceaccount:shop:default", "web-0"),
            "person-token", List.of("alice"));

    @BeforeEach
    void answerTokenReviews() {
        server.expect().post().withPath("/apis/authentication.k8s.io/v1/tokenreviews").andReply(201, req -> {
            TokenReview in = Serialization.unmarshal(req.getBody().readUtf8(), TokenReview.class);
            assertThat(in.getSpec().getAudiences()).containsExactly(Authenticators.AUDIENCE);
            List<String> user = USERS.get(in.getSpec().getToken());
            TokenReviewBuilder out = new TokenReviewBuilder(in);
            if (user == null) {
                return out.withNewStatus().withAuthenticated(false).withError("token expired").endStatus().build();
            }
            return out.withNewStatus().withAuthenticated(true).withNewUser().withUsername(user.get(0))
                    .withExtra(user.size() > 1 ? Map.of("authentication.kubernetes.io/pod-name", List.of(user.get(1))) : Map.of())
                    .endUser().endStatus().build();
        }).always();
    }

    static Stream<Arguments> cases() {
        ProxyIdentity ingress = new ProxyIdentity("strait", null, null);
        return Stream.of(
                Arguments.of("ingress proxy from an allowed namespace", ingress, "ingress-token", null),
                Arguments.of("sidecar of its own pod", new ProxyIdentity(null, "shop", "web-0"), "shop-token", null),
                Arguments.of("expired token", ingress, "old-token",
                        "unauthenticated: the token was not accepted (token expired)"),
                Arguments.of("sidecar claiming another namespace", new ProxyIdentity(null, "bank", "web-0"), "shop-token",
                        "forbidden: service account system:serviceaccount:shop:default cannot be a sidecar in namespace bank"),
                Arguments.of("sidecar claiming another pod", new ProxyIdentity(null, "shop", "web-1"), "shop-token",
                        "forbidden: the token belongs to pod web-0, not web-1"),
                Arguments.of("ingress proxy from elsewhere", ingress, "shop-token",
                        "forbidden: service account system:serviceaccount:shop:default may not serve ingress class strait"),
                Arguments.of("a person, not a service account", ingress, "person-token",
                        "forbidden: alice is not a service account"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decides(String name, ProxyIdentity identity, String token, String expected) {
        assertThat(Authenticators.review(client, Set.of("strait-system"), identity, token)).isEqualTo(expected);
    }
}
