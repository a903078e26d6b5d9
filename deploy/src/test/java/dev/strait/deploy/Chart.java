package dev.strait.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** helm/strait rendered with embedded Helm (helm-java), read back into typed fabric8 objects. */
final class Chart {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path DIR = ROOT.resolve("helm/strait");
    static final String NAMESPACE = "strait-system";
    static final String KUBE_VERSION = "1.31.0";

    private Chart() {}

    /** {@code helm template RELEASE helm/strait -n strait-system --set k=v ...} as YAML. */
    static String template(String release, Map<String, Object> values) {
        return template(release, c -> {
            values.forEach(c::set);
            return c;
        });
    }

    static String template(String release, UnaryOperator<TemplateCommand> options) {
        TemplateCommand c = new Helm(DIR).template().withName(release).withNamespace(NAMESPACE)
                .withKubeVersion(KUBE_VERSION);
        return options.apply(c).call();
    }

    /** Every document of a multi-document YAML stream, as typed objects (unknown kinds stay generic). */
    static List<HasMetadata> objects(String yaml) {
        List<HasMetadata> out = new ArrayList<>();
        for (String doc : yaml.split("(?m)^---\\s*$")) {
            String body = doc.replaceAll("(?m)^#.*$", "").trim();
            if (!body.isEmpty()) {
                out.add(Serialization.unmarshal(doc, HasMetadata.class));
            }
        }
        return out;
    }

    static <T extends HasMetadata> List<T> all(List<HasMetadata> objects, Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type, String name) {
        List<T> found = all(objects, type).stream().filter(o -> o.getMetadata().getName().equals(name)).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one " + type.getSimpleName() + " " + name + ", found " + found.size()
                    + " among " + objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList());
        }
        return found.get(0);
    }
}
