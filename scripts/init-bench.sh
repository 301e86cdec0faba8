#!/usr/bin/env bash
# Times `wenshu init` on a schema of 50 tables (10 dimension tables, 40 fact tables with two foreign keys, a day
# column, a low-cardinality text column and two measures; 2,000 rows each) in SQLite, and in PostgreSQL and
# MariaDB when WENSHU_TEST_POSTGRES_URL / WENSHU_TEST_MYSQL_URL are set (each in a database of its own,
# wenshu_init19_bench). Usage: scripts/init-bench.sh [path/to/wenshu]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/debug/wenshu}"
[ -x "$bin" ] || cargo build -q -p wenshu
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The schema and rows as portable SQL ($1: sqlite, postgres or mysql).
schema() {
    awk -v dialect="$1" 'BEGIN {
        money = dialect == "sqlite" ? "REAL" : "DECIMAL(12,2)"
        text = dialect == "mysql" ? "VARCHAR(60)" : "TEXT"
        for (f = 1; f <= 40; f++) print "DROP TABLE IF EXISTS fact" f ";"
        for (d = 1; d <= 10; d++) print "DROP TABLE IF EXISTS dim" d ";"
        for (d = 1; d <= 10; d++) {
            print "CREATE TABLE dim" d " (id INT PRIMARY KEY, name " text ", kind " text ");"
            rows = ""
            for (i = 1; i <= 50; i++) rows = rows (i > 1 ? "," : "") "(" i ", \x27name " d "-" i "\x27, \x27kind " i % 5 "\x27)"
            print "INSERT INTO dim" d " VALUES " rows ";"
        }
        for (f = 1; f <= 40; f++) {
            a = f % 10 + 1; b = (f + 3) % 10 + 1
            print "CREATE TABLE fact" f " (id INT PRIMARY KEY, a_id INT REFERENCES dim" a "(id), b_id INT REFERENCES dim" b "(id), day DATE, channel " text ", amount " money ", quantity INT);"
            rows = ""
            for (i = 1; i <= 2000; i++)
                rows = rows (i > 1 ? "," : "") sprintf("(%d, %d, %d, \x272025-%02d-%02d\x27, \x27c%d\x27, %d.5, %d)", i, i % 50 + 1, (i * 7) % 50 + 1, i % 12 + 1, i % 28 + 1, i % 4, i % 997, i % 9 + 1)
            print "INSERT INTO fact" f " VALUES " rows ";"
        }
    }'
}

# Runs init once and prints its wall time in milliseconds ($1: label, $2: URL).
timed() {
    local start end
    start=$(date +%s%N)
    "$bin" init --db "$2" --out "$work/out-$1" --force > "$work/$1.log"
    end=$(date +%s%N)
    printf '%-10s 50 tables: wenshu init took %d ms (%s)\n' "$1" $(( (end - start) / 1000000 )) \
        "$(grep -c 'metric tool `' "$work/$1.log") metric tools"
}

schema sqlite > "$work/sqlite.sql"
sqlite3 "$work/bench.db" < "$work/sqlite.sql"
timed sqlite "sqlite:$work/bench.db"

if [ -n "${WENSHU_TEST_POSTGRES_URL:-}" ]; then
    base="${WENSHU_TEST_POSTGRES_URL%/*}"
    psql -q "$WENSHU_TEST_POSTGRES_URL" -c "DROP DATABASE IF EXISTS wenshu_init19_bench" -c "CREATE DATABASE wenshu_init19_bench"
    schema postgres | psql -q "$base/wenshu_init19_bench" > /dev/null 2>&1
    timed postgres "$base/wenshu_init19_bench"
fi
if [ -n "${WENSHU_TEST_MYSQL_URL:-}" ]; then
    mysql -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS wenshu_init19_bench; CREATE DATABASE wenshu_init19_bench"
    schema mysql | mysql -h 127.0.0.1 -u root wenshu_init19_bench
    timed mariadb "${WENSHU_TEST_MYSQL_URL%/*}/wenshu_init19_bench"
fi
