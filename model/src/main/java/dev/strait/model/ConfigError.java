package dev.strait.model;

/** One problem found in a config, with the path of the field it is about ({@code routes[0].hosts[1]}). */
public record ConfigError(String path, String message) {
    @Override
    public String toString() {
        return path.isEmpty() ? message : path + ": " + message;
    }
}
