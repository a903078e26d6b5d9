# The Strait proxy image: a JRE, the jar, and its launcher (JVM flags sized for a proxy, ADR 0004).
# Build from the repository root after packaging:
#   ./mvnw -B -q -DskipTests package
#   docker build -f docker/proxy.Dockerfile -t ghcr.io/strait-dev/strait-proxy:0.1.0 .
FROM eclipse-temurin:21-jre-noble
COPY proxy/target/strait-proxy.jar /opt/strait/strait-proxy.jar
COPY proxy/bin/strait-proxy /opt/strait/bin/strait-proxy
# No class-data archive: the root file system is read-only in the chart and in injected sidecars.
ENV STRAIT_JAR=/opt/strait/strait-proxy.jar \
    STRAIT_CDS=off
# A numeric non-root user, so runAsNonRoot can verify it without /etc/passwd.
USER 65532:65532
EXPOSE 8080 8443 9901
ENTRYPOINT ["/opt/strait/bin/strait-proxy"]
