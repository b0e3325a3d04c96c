# Loopback servers of the real scale-out engines, for the scale-out test and benchmark (sourced).
# Nothing listens on any address but 127.0.0.1; every server is stopped when the shell exits.
#   start_distccd DIR   → exports DISTCC_HOSTS, DISTCC_DIR, DISTCC_FALLBACK=0; log in DIR/distccd.log
#   start_redis DIR     → exports SKB_REDIS_URL (redis://127.0.0.1:<port>)
#   distcc_compiles DIR → compiles distccd finished (COMPILE_OK lines of its log)
SKB_SERVER_PIDS=""
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
stop_servers() { for p in $SKB_SERVER_PIDS; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap stop_servers EXIT

start_distccd() {
  local dir=$1 port
  port=$(free_port)
  mkdir -p "$dir/client"
  # As root distccd drops privileges: its log goes through our stderr redirect, not a file it opens,
  # and its temporary files go to the machine's /tmp, not to a TMPDIR its user may not write to.
  TMPDIR=/tmp distccd --daemon --no-detach --listen 127.0.0.1 --allow 127.0.0.1/32 --port "$port" --jobs 2 \
    --log-stderr --log-level info 2>"$dir/distccd.log" &
  SKB_SERVER_PIDS="$SKB_SERVER_PIDS $!"
  export DISTCC_HOSTS="127.0.0.1:$port/2" DISTCC_DIR="$dir/client" DISTCC_FALLBACK=0 DISTCC_BACKOFF_PERIOD=0
  for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "distccd did not start: $(cat "$dir/distccd.log")" >&2
  return 1
}

start_redis() {
  local dir=$1 port
  port=$(free_port)
  mkdir -p "$dir"
  redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$dir" >"$dir/redis.log" 2>&1 &
  SKB_SERVER_PIDS="$SKB_SERVER_PIDS $!"
  export SKB_REDIS_URL="redis://127.0.0.1:$port"
  for _ in $(seq 50); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.1
  done
  echo "redis-server did not start: $(cat "$dir/redis.log")" >&2
  return 1
}

distcc_compiles() { grep -c 'COMPILE_OK' "$1/distccd.log" || true; }
