package dev.strait.operator.crd;

/** Regular expressions shared by the CRD schema; they match what {@code ConfigParser} accepts. */
final class Patterns {
    /** A Kubernetes object name (DNS subdomain), as the config's {@code name} fields. */
    static final String NAME = "^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$";
    /** An HTTP token (method, header name), RFC 9110 5.6.2. */
    static final String TOKEN = "^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$";
    /** A config duration: 250ms, 5s, 1m, 2h. */
    static final String DURATION = "^[0-9]{1,9}(ms|s|m|h)$";
    /** A cookie's Path: "/" and printable ASCII but ";" (RFC 6265 4.1.1), no spaces. */
    static final String COOKIE_PATH = "^/[!-:<-~]{0,1023}$";

    /** Text that can stand in a {@code Location} field: visible ASCII, no spaces (ConfigParser's URL_PART). */
    static final String URL_PART = "^[!-~]+$";
    /** Text that can stand in a cookie attribute's value: visible ASCII but ";" (ConfigParser's COOKIE_VALUE). */
    static final String COOKIE_VALUE = "^[!-:<-~]+$";

    /** A DNS host name (no port, no wildcard), as an upstream's TLS server name. */
    static final String HOST_NAME = "^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$";

    /**
     * A cookie's {@code Domain}: a host name, a leading dot allowed (no port, path or ';'). The model also refuses
     * IP addresses and empty labels, which the translator reports.
     */
    static final String COOKIE_DOMAIN = "^\\.?[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$";

    /** A DNS host name in lower case, as a redirect's {@code hostname}. */
    static final String LOWER_HOST_NAME = "^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$";

    /** A Host header value: a name or an address, with an optional port. */
    static final String HOST_VALUE =
            "^(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(:[0-9]{1,5})?$";

    /**
     * A media type ({@code text/html}) or a whole top-level type ({@code text/*}), as a rule's {@code compression}
     * lists them (ConfigParser's MEDIA_RANGE, which reads them in any case).
     */
    static final String MEDIA_RANGE =
            "^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/(\\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126})$";

    private Patterns() {}
}
