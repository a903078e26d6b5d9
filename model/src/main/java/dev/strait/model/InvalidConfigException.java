package dev.strait.model;

import java.util.List;
import java.util.stream.Collectors;

/** A config was refused; carries every error found, each naming its field. */
public final class InvalidConfigException extends Exception {
    private final List<ConfigError> errors;

    public InvalidConfigException(String source, List<ConfigError> errors) {
        super(source + ": " + errors.size() + " error(s):\n  "
                + errors.stream().map(ConfigError::toString).collect(Collectors.joining("\n  ")));
        this.errors = List.copyOf(errors);
    }

    public List<ConfigError> errors() {
        return errors;
    }
}
