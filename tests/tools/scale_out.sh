# Loopback servers of the real scale-out engines, for the scale-out test and benchmark (sourced).
# Nothing listens on any address but 127.0.0.1; every server is stopped when the shell exits.
#   start_distccd DIR   → exports DISTCC_HOSTS, DISTCC_DIR, DISTCC_FALLBACK=0; log in DIR/distccd.log
#   start_redis DIR     → exports SKB_REDIS_URL (redis://127.0.0.1:<port>), SKB_REDIS_PID
#   start_nginx_dav DIR → exports SKB_DAV_URL (http://127.0.0.1:<port>/kernels, files in DIR/dav/kernels),
#                         SKB_NGINX_PID
#   distcc_compiles DIR → compiles distccd finished (COMPILE_OK lines of its log)
SKB_SERVER_PIDS=""
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
stop_servers() { for p in $SKB_SERVER_PIDS; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap stop_servers EXIT
# wait_for_port PORT NAME LOG: until 127.0.0.1:PORT accepts (5 s at most; then NAME's LOG, and failure).
wait_for_port() {
  for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 0.2)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "$2 did not start: $(cat "$3")" >&2
  return 1
}

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
  wait_for_port "$port" distccd "$dir/distccd.log"
}

start_redis() {
  local dir=$1 port
  port=$(free_port)
  mkdir -p "$dir"
  redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$dir" >"$dir/redis.log" 2>&1 &
  SKB_SERVER_PIDS="$SKB_SERVER_PIDS $!"
  SKB_REDIS_PID=$!
  export SKB_REDIS_URL="redis://127.0.0.1:$port"
  for _ in $(seq 50); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.1
  done
  echo "redis-server did not start: $(cat "$dir/redis.log")" >&2
  return 1
}

# nginx with its WebDAV module serving PUT and GET under /kernels/. As root, nginx's workers run
# as nobody: the folders they write are theirs to write.
start_nginx_dav() {  # dir [htpasswd file: the store then asks for HTTP basic auth]
  local dir=$1 port auth=""
  port=$(free_port)
  mkdir -p "$dir/dav/kernels" "$dir/body"
  chmod 0777 "$dir/dav/kernels" "$dir/body"
  [ -n "${2:-}" ] && auth="auth_basic \"skb\"; auth_basic_user_file $2;"
  cat >"$dir/nginx.conf" <<EOF
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 256; }
http {
  access_log $dir/access.log;
  client_body_temp_path $dir/body;
  server {
    listen 127.0.0.1:$port;
    location /kernels/ {
      root $dir/dav;
      dav_methods PUT DELETE;
      client_max_body_size 1g;
      $auth
    }
  }
}
EOF
  nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>>"$dir/error.log" &
  SKB_SERVER_PIDS="$SKB_SERVER_PIDS $!"
  SKB_NGINX_PID=$!
  export SKB_DAV_URL="http://127.0.0.1:$port/kernels"
  wait_for_port "$port" nginx "$dir/error.log"
}

distcc_compiles() { grep -c 'COMPILE_OK' "$1/distccd.log" || true; }
