# The Strait operator image: a JRE and the jar.
# Build from the repository root after packaging:
#   ./mvnw -B -q -DskipTests package
#   docker build -f docker/operator.Dockerfile -t ghcr.io/strait-dev/strait-operator:0.1.0 .
FROM eclipse-temurin:21-jre-noble
COPY operator/target/strait-operator.jar /opt/strait/strait-operator.jar
USER 65532:65532
# 18000: the control channel; 8443: the sidecar injection webhook.
EXPOSE 18000 8443
ENTRYPOINT ["java", "-jar", "/opt/strait/strait-operator.jar"]
