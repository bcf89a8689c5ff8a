#!/usr/bin/env bash
# realworld.sh: serves configurations that real projects ship, prepared by
# ../shared/nginx-configs/real-world/prepare.sh (or any tree laid out the
# same way: one directory per entry holding nginx.conf), with Debian's
# NGINX and with mosaic in turn, and compares what each answers to the
# same requests for the static parts: status, Content-Type, Location and
# the body's checksum, for a set of probe files the script writes into
# every variable-free root. Upstreams are not running, so proxied and PHP
# locations answer 502 on both. Needs root (the files listen on 80, 443,
# 8000, 8448), curl and /usr/sbin/nginx; stops any server it started.
#
#   internal/bench/realworld.sh PREPARED_DIR [MOSAIC_BINARY]
set -uo pipefail
dir=${1:?usage: $0 PREPARED_DIR [MOSAIC_BINARY]}
mosaic=${2:-}
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
if [[ -z $mosaic ]]; then
	mosaic=$tmp/mosaic
	(cd "$repo" && go build -o "$mosaic" ./cmd/mosaic) || exit 1
fi
paths=(/ /index.html /robots.txt /style.css /app.js /image.png /.htaccess /backup.bak
	/sub /sub/ /missing /favicon.ico /.well-known/acme-challenge/token /.git/config)

# probe files in every root written without variables
seed() {
	local root
	grep -rhoE '^\s*root\s+/[^;$]+;' "$1" 2>/dev/null | sed -E 's/^\s*root\s+//; s/;$//' | sort -u |
		while read -r root; do
			mkdir -p "$root/sub" "$root/.well-known/acme-challenge" "$root/.git"
			echo "index of $root" >"$root/index.html"
			echo "sub index" >"$root/sub/index.html"
			printf 'User-agent: *\n' >"$root/robots.txt"
			echo 'body{color:red}' >"$root/style.css"
			echo 'var a=1;' >"$root/app.js"
			head -c 300 /dev/zero >"$root/image.png"
			echo 'deny' >"$root/.htaccess"
			echo 'old' >"$root/backup.bak"
			echo 'ico' >"$root/favicon.ico"
			echo 'token' >"$root/.well-known/acme-challenge/token"
			echo '[core]' >"$root/.git/config"
		done
}

# endpoints "scheme port host" of an entry: its listen ports and first names
endpoints() {
	local files ports port ssl host
	files=$(grep -rlE '^\s*listen' "$1" 2>/dev/null)
	host=$(grep -rhoE '^\s*server_name\s+[^;]+' $files 2>/dev/null | sed -E 's/^\s*server_name\s+//' |
		tr ' ' '\n' | grep -vE '^(_|)$|[*~]' | head -1)
	grep -rhoE '^\s*listen\s+[^;]+' $files 2>/dev/null | grep -v '\[' | sed -E 's/^\s*listen\s+//' | sort -u |
		while read -r port rest; do
			port=${port##*:}
			[[ $port =~ ^[0-9]+$ ]] || continue
			ssl=http
			[[ " $rest " == *" ssl "* ]] && ssl=https
			echo "$ssl $port ${host:-localhost}"
		done | sort -u
}

probe() { # scheme port host -> one line per path
	local p out sum
	for p in "${paths[@]}"; do
		out=$(curl -sk -o "$tmp/body" -w '%{http_code} %{content_type} %{redirect_url}' \
			--resolve "$3:$2:127.0.0.1" "$1://$3:$2$p" 2>/dev/null)
		# Error pages differ in their footer (NGINX names itself): their
		# status and type are compared, the body of the others.
		sum=-
		[[ $out == [12]* ]] && sum=$(md5sum <"$tmp/body" | cut -c1-8)
		printf '%s %s %s\n' "$p" "$out" "$sum"
	done
}

run() { # name cmd... : start, probe every endpoint, stop
	local name=$1 pid
	shift
	"$@" >"$tmp/$name.out" 2>&1 &
	pid=$!
	sleep 0.7
	if ! kill -0 $pid 2>/dev/null; then
		echo "cannot start: $(tail -2 "$tmp/$name.out" | tr '\n' ' ')"
		return 1
	fi
	while read -r s p h; do probe "$s" "$p" "$h" | sed "s|^|$s:$p |"; done <"$tmp/ends"
	kill $pid
	wait $pid 2>/dev/null
}

total=0 same=0
for conf in "$dir"/*/nginx.conf; do
	entry=$(basename "$(dirname "$conf")")
	seed "$(dirname "$conf")"
	endpoints "$(dirname "$conf")" >"$tmp/ends"
	run nginx /usr/sbin/nginx -c "$conf" -g 'daemon off; master_process off;' >"$tmp/a" 2>&1
	na=$?
	run mosaic "$mosaic" -c "$conf" >"$tmp/b" 2>&1
	nb=$?
	if ((na || nb)); then
		echo "$entry: nginx: $(head -1 "$tmp/a") mosaic: $(head -1 "$tmp/b")"
		continue
	fi
	n=$(wc -l <"$tmp/a")
	d=$(diff "$tmp/a" "$tmp/b" | grep -c '^<')
	total=$((total + n)) same=$((same + n - d))
	echo "$entry: $((n - d))/$n answers the same"
	diff "$tmp/a" "$tmp/b" | grep '^[<>]' | sed 's/^/    /'
done
echo "all: $same/$total answers the same"
