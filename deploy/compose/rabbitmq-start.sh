#!/bin/sh
# A RabbitMQ node in the compose file: deploy/rabbitmq's configuration with Atrium's account and the
# cluster's Erlang cookie from the environment (not baked into an image or a file in the repository),
# then the node in the foreground. The account is created by the first node of a fresh cluster; the
# others take the cluster's users when they join.
set -eu
umask 077
cp /etc/atrium/enabled_plugins /etc/rabbitmq/enabled_plugins
{
  cat /etc/atrium/rabbitmq.conf
  printf 'default_user = atrium\ndefault_pass = %s\n' "$ATRIUM_AMQP_PASSWORD"
} > /etc/rabbitmq/rabbitmq.conf
chown rabbitmq /etc/rabbitmq/rabbitmq.conf
printf '%s' "$RABBITMQ_COOKIE" > /var/lib/rabbitmq/.erlang.cookie
chown rabbitmq:rabbitmq /var/lib/rabbitmq/.erlang.cookie /var/lib/rabbitmq
chmod 400 /var/lib/rabbitmq/.erlang.cookie
# Debian's wrapper runs the node as the rabbitmq user.
exec rabbitmq-server
