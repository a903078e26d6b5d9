package dev.strait.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What can be checked of the images without a Docker engine: each Dockerfile starts from a JRE, copies
 * files that the build produced, runs as a numeric non-root user, and its ENTRYPOINT, with the image's
 * paths mapped back to the copied files, starts the jar here.
 */
class DockerfilesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The instructions of a Dockerfile that matter here. */
    record Image(String from, Map<String, Path> copies, String user, List<String> entrypoint, Map<String, String> env) {
        static Image read(String name) throws IOException {
            String from = null;
            String user = null;
            List<String> entrypoint = List.of();
            Map<String, Path> copies = new LinkedHashMap<>();
            Map<String, String> env = new LinkedHashMap<>();
            String text = Files.readString(Chart.ROOT.resolve("docker").resolve(name)).replace("\\\n", " ");
            for (String line : text.split("\n")) {
                String[] w = line.trim().split("\\s+");
                switch (w[0]) {
                    case "FROM" -> from = w[1];
                    case "COPY" -> copies.put(w[2], Chart.ROOT.resolve(w[1]));
                    case "USER" -> user = w[1];
                    case "ENV" -> {
                        for (int i = 1; i < w.length; i++) {
                            String[] kv = w[i].split("=", 2);
                            env.put(kv[0], kv[1]);
                        }
                    }
                    case "ENTRYPOINT" -> entrypoint = List.of(JSON.readValue(line.trim().substring("ENTRYPOINT".length()),
                            String[].class));
                    default -> { }
                }
            }
            return new Image(from, copies, user, entrypoint, env);
        }

        /** The entrypoint with image paths replaced by the files they were copied from. */
        List<String> localCommand() {
            List<String> out = new ArrayList<>();
            for (String a : entrypoint) {
                out.add(copies.containsKey(a) ? copies.get(a).toString() : a);
            }
            return out;
        }

        Map<String, String> localEnv() {
            Map<String, String> out = new LinkedHashMap<>();
            // The launcher runs ${JAVA:-java}: the JDK running these tests, not whatever is on PATH.
            out.put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
            env.forEach((k, v) -> out.put(k, copies.containsKey(v) ? copies.get(v).toString() : v));
            return out;
        }
    }

    private static void checkBasics(Image image) {
        assertThat(image.from()).as("a JRE base").matches("eclipse-temurin:\\d+-jre.*");
        assertThat(image.user()).as("numeric non-root user").matches("[1-9][0-9]*:[1-9][0-9]*");
        assertThat(image.copies()).isNotEmpty();
        image.copies().values().forEach(p -> assertThat(p).as("built before the image").isRegularFile());
        assertThat(readLines(Chart.ROOT.resolve(".dockerignore")))
                .as(".dockerignore lets the copied files in")
                .containsAll(image.copies().values().stream().map(p -> "!" + Chart.ROOT.relativize(p)).toList());
    }

    private static List<String> readLines(Path p) {
        try {
            return Files.readAllLines(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String run(List<String> command, Map<String, String> env, int expectedExit) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(command + "\n" + out).isEqualTo(expectedExit);
        return out;
    }

    @Test
    void theProxyImageRunsTheLauncherOnTheJar(@TempDir Path dir) throws Exception {
        Image image = Image.read("proxy.Dockerfile");
        checkBasics(image);
        assertThat(image.entrypoint()).containsExactly("/opt/strait/bin/strait-proxy");
        assertThat(image.env()).containsEntry("STRAIT_JAR", "/opt/strait/strait-proxy.jar").containsEntry("STRAIT_CDS", "off");
        Path config = dir.resolve("strait.yaml");
        Files.writeString(config, "listeners: [ { name: http, address: 127.0.0.1:0 } ]\nroutes: [ { name: r, hosts: [ \"*\" ], rules: [ { respond: { status: 204 } } ] } ]\n");
        List<String> cmd = new ArrayList<>(image.localCommand());
        cmd.addAll(List.of("--check", config.toString()));
        run(cmd, image.localEnv(), 0);
        Files.writeString(config, "listeners: [ { name: http, address: nowhere } ]\n");
        String out = run(cmd, image.localEnv(), 1);
        assertThat(out).contains("listeners[0].address");
    }

    @Test
    void theOperatorImageRunsTheJar() throws Exception {
        Image image = Image.read("operator.Dockerfile");
        checkBasics(image);
        assertThat(image.entrypoint()).containsExactly("java", "-jar", "/opt/strait/strait-operator.jar");
        List<String> cmd = withArgs(image.localCommand(), "--help");
        cmd.set(0, Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String out = run(cmd, Map.of(), 0);
        assertThat(out).contains("usage: java -jar strait-operator.jar", "--webhook-address", "--ingress-address");
    }

    private static List<String> withArgs(List<String> command, String... args) {
        List<String> out = new ArrayList<>(command);
        out.addAll(List.of(args));
        return out;
    }
}
