package dev.strait.operator.translate;

/** One condition as the translation sees it; the status package turns it into a Kubernetes Condition. */
public record StatusCondition(String type, boolean status, String reason, String message) {
    public static final String ACCEPTED = "Accepted";
    public static final String RESOLVED_REFS = "ResolvedRefs";
    public static final String PROGRAMMED = "Programmed";

    public static StatusCondition yes(String type, String reason, String message) {
        return new StatusCondition(type, true, reason, message);
    }

    public static StatusCondition no(String type, String reason, String message) {
        return new StatusCondition(type, false, reason, message);
    }
}
