# The services Atrium stands on, from Debian bookworm's own packages (the versions the tests and
# benches run against on a Debian machine): rabbitmq-server, haproxy, kamailio, rtpengine-daemon.
FROM debian:bookworm-slim
ARG PACKAGES
RUN apt-get update && apt-get install -y --no-install-recommends ${PACKAGES} && rm -rf /var/lib/apt/lists/*
