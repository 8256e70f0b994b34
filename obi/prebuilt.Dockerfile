# OpenBox Instance images from the OBI binary built on the host (`./openbox build`)
# instead of by the C++ build inside the image (obi/Dockerfile): the same runtime, OBI and
# replayer targets, in seconds rather than minutes. Only for a host running the same
# Debian release as BASE (the binary links that release's libraries). Keep the runtime
# part in step with obi/Dockerfile. tests/system/compose.sh builds it.
#
# Context: a directory holding
#   obi                    build/obi/obi
#   runtime-packages       the Debian packages holding the libraries it links (one a line)
#   docker-entrypoint.sh   obi/docker-entrypoint.sh
#   demo/, compose/        apps/demo and tests/system/compose (the replayer)
#
#   docker build -f obi/prebuilt.Dockerfile --target obi -t openbox/obi CONTEXT-DIR

ARG BASE=debian:bookworm

FROM ${BASE} AS runtime
COPY runtime-packages /usr/local/share/openbox/obi-runtime-packages
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      $(cat /usr/local/share/openbox/obi-runtime-packages) \
      librte-net-virtio23 librte-net-af-packet23 librte-net-pcap23 iproute2 \
    && rm -rf /var/lib/apt/lists/*
COPY obi /usr/local/bin/obi
COPY docker-entrypoint.sh /usr/local/bin/obi-entrypoint

FROM runtime AS replayer
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      python3 \
    && rm -rf /var/lib/apt/lists/*
COPY demo /opt/openbox/demo
COPY compose /opt/openbox/compose
WORKDIR /work
ENTRYPOINT ["python3", "/opt/openbox/compose/replay.py"]

FROM runtime AS obi
EXPOSE 3636
ENTRYPOINT ["/usr/local/bin/obi-entrypoint"]
