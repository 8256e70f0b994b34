# OpenBox controller image from jars built on the host (`./openbox build`) instead of by
# Maven inside the image (obc/server/Dockerfile): no Maven Central access during the build,
# and a rebuild after a source change costs seconds. The same image otherwise (keep the
# runtime part in step with obc/server/Dockerfile). tests/system/compose.sh builds it.
#
# Context: a directory laid out as the image's /opt/openbox, e.g.
#   controller.jar                        obc/server/target/openbox-controller-*.jar
#   apps/openbox-app-{firewall,ips}*.jar  apps/*/target/
#   more-apps/openbox-app-*.jar           the web cache and load balancer
#   sample/                               apps/demo/sample
#
#   docker build -f obc/server/prebuilt.Dockerfile -t openbox/controller CONTEXT-DIR
#
# BASE: any Debian bookworm image (default debian:bookworm from Docker Hub; compose.sh
# passes one made locally with debootstrap).
ARG BASE=debian:bookworm
FROM ${BASE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      openjdk-17-jre-headless curl \
    && rm -rf /var/lib/apt/lists/*
COPY . /opt/openbox
WORKDIR /opt/openbox/etc
EXPOSE 3637
HEALTHCHECK --interval=5s --timeout=3s --start-period=60s \
  CMD curl -fsk https://127.0.0.1:3637/actuator/health 2>/dev/null | grep -q UP \
      || curl -fs http://127.0.0.1:3637/actuator/health | grep -q UP
ENTRYPOINT ["java", "-Xmx512m", "-jar", "/opt/openbox/controller.jar", "--apps", "/opt/openbox/apps"]
