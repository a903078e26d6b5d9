package dev.strait.operator.translate;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Map;

/**
 * A Service's or Secret's consent to be named from other namespaces (ADR 0078): its annotation
 * {@value #ANNOTATION} lists the namespaces (comma-separated), or is {@code *}. The consent sits on the object it
 * opens, so only those who may edit that object can give it, as Gateway API's ReferenceGrant is the target
 * namespace's; opening one Service or Secret opens nothing else.
 */
final class Consent {
    static final String ANNOTATION = "strait.dev/accept-references-from";

    private Consent() {}

    /** Whether {@code target} may be named from namespace {@code from}. */
    static boolean accepts(HasMetadata target, String from) {
        Map<String, String> annotations = target.getMetadata().getAnnotations();
        String list = annotations == null ? null : annotations.get(ANNOTATION);
        if (list == null) {
            return false;
        }
        for (String ns : list.split(",")) {
            String n = ns.trim();
            if (n.equals("*") || n.equals(from)) {
                return true;
            }
        }
        return false;
    }

    /** What a reference to {@code kind "name"} of namespace {@code target} from namespace {@code from} lacks. */
    static String refused(String kind, String name, String target, String from) {
        return kind + " \"" + name + "\" of namespace \"" + target + "\" does not accept references from namespace \""
                + from + "\": its annotation " + ANNOTATION + " must list \"" + from + "\" (or be \"*\")";
    }
}
