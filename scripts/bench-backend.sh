# bench-backend.sh is sourced by the scripts that measure statements in one
# PostgreSQL backend. It defines scratch_database and per_delivery.

# scratch_database creates the database db on the server at url, to be
# dropped when the script exits, and sets dburl to its URL.
scratch_database() {
	local url=$1 db=$2
	psql -q "$url" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	# shellcheck disable=SC2064 # url and db are expanded now, on purpose
	trap "psql -q '$url' -c 'DROP DATABASE IF EXISTS $db'" EXIT
	dburl=$(printf '%s' "$url" | sed -E "s#/[^/?]*(\?|$)#/$db\1#")
}

# per_delivery runs sql on a backend of its own, on the database at dburl,
# and prints label with the backend's CPU time and the WAL written
# meanwhile, each divided by n deliveries.
per_delivery() {
	local dburl=$1 label=$2 n=$3 sql=$4
	local fifo client pid before after wal0 wal1 hz wal
	fifo=$(mktemp -u)
	mkfifo "$fifo"
	# Appending: the output file is emptied between the two answers.
	psql -qAt "$dburl" <"$fifo" >>"$fifo.out" &
	client=$!
	exec 3>"$fifo"
	echo "SELECT pg_backend_pid(), pg_current_wal_insert_lsn();" >&3
	until [ -s "$fifo.out" ]; do sleep 0.05; done
	IFS='|' read -r pid wal0 <"$fifo.out"
	before=$(backend_cpu "$pid")
	: >"$fifo.out"
	echo "$sql SELECT pg_current_wal_insert_lsn();" >&3
	until [ -s "$fifo.out" ]; do sleep 0.05; done
	after=$(backend_cpu "$pid")
	wal1=$(tail -1 "$fifo.out")
	exec 3>&-
	wait "$client"
	rm -f "$fifo" "$fifo.out"
	hz=$(getconf CLK_TCK)
	wal=$(psql -qAt "$dburl" -c "SELECT pg_wal_lsn_diff('$wal1', '$wal0')")
	awk -v t=$((after - before)) -v hz="$hz" -v n="$n" -v w="$wal" -v l="$label" \
		'BEGIN { printf "%-26s %6.1f µs CPU and %5.0f B of WAL per delivery\n", l, t / hz * 1e6 / n, w / n }'
}

# backend_cpu prints the CPU time, in clock ticks, a process has used.
backend_cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
