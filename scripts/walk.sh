#!/usr/bin/env bash
# The walk of one question through `POST /api/ask`: the sequence of the project's source files (paths under
# crates/) whose functions run, in order, while the server answers one question; from it the stops (maximal runs of
# consecutive events in one file), the distinct files, the returns (stops in a file already visited earlier in the
# walk) and how often each file is re-entered.
#
# Usage: scripts/walk.sh [BINARY] QUESTION        (BINARY: a debug build of `wenshu`, default target/debug/wenshu)
#   WALK_CRATES  the crates (folders under crates/) whose functions are watched, or `all`; default
#                "wenshu-engine wenshu-server". Calls into crates not watched are invisible: they neither split nor
#                make a stop.
#   WALK_SKIP    a Python regex of function names whose events are left out before counting (default none), e.g.
#                'as core::clone::Clone>' for the derived clones of AppState that axum's layers make on every poll.
#   WALK_TODAY   the server's fixed day (default 2026-11-29);  WALK_DEPTH  frames read per event (default 96; 0:
#                no stack reading, the call walk only);  WALK_KEEP  a folder to keep the raw events in.
#
# Method. The dev profile keeps line tables for the workspace's crates, so each function symbol (nm) maps to the
# file of its first instruction (gdb's line table); those in the watched crates are the targets. The binary is
# copied, and `wenshu serve --today` runs on a fresh WENSHU_DATA_DIR (demo data, lexicon engine, no model, request
# deadline raised to an hour). gdb attaches, puts a breakpoint on each target's entry address, and the question is
# sent with curl; SIGUSR1 (caught by gdb, never delivered) ends the recording once the answer is back, so only what
# runs between the request and its answer is counted (anything else the server does meanwhile, e.g. a background
# task, would be counted too; events carry their thread). Each breakpoint hit is one event (the function's file).
# gdb's cost per hit grows with the number of breakpoints, so it runs twice, each time on a fresh server asked the
# same question: first with one-shot breakpoints on every target, to learn which functions run at all; then with
# breakpoints on those only, recording every hit.
#
# Approximation. A breakpoint sees a function's entry, not its return: after B (called from A) returns and A goes
# on, A shows up again only when A's file calls another watched function, or through its own next entry. So the
# "call walk" (entries only) undercounts returns. The "walk with returns" (WALK_DEPTH > 0) adds them: at each event
# it reads the stack (frames identified by their CFA) back to a frame of the previous event's stack on that thread,
# and puts in the files of the watched frames control came back through (returns), and of any watched frame entered
# unseen, before the new call. Returns after the last watched call are not seen. An `.await` that yields unwinds
# the task's stack and its re-poll enters the async bodies (marked [async]) again: counted as entries; the unwinding
# is not counted as returns. Events of all threads are one sequence in time order, so two tasks running at once
# interleave their stops; each walk is therefore also counted per task (the outermost watched frame on the stack,
# e.g. spawn_ask's task, which runs the engine, and the connection's task, which runs the layers and the handler).
# Functions inlined at opt-level 0 (#[inline(always)]) have no entry of their own; a function that runs only in the
# second run (not the first) is missed. Runs differ by a few events (how often futures are polled).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -ge 2 ]; then bin="$1"; question="$2"; else bin="$root/target/debug/wenshu"; question="${1:?usage: $0 [BINARY] QUESTION}"; fi
crates="${WALK_CRATES:-wenshu-engine wenshu-server}"
today="${WALK_TODAY:-2026-11-29}"
depth="${WALK_DEPTH:-96}"
for tool in gdb nm curl python3; do command -v "$tool" >/dev/null || { echo "walk.sh needs $tool" >&2; exit 1; }; done
[ -x "$bin" ] || { echo "no binary at $bin (cargo build -p wenshu)" >&2; exit 1; }

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
start_s=$(date +%s.%N)
cp "$bin" "$work/wenshu"   # a rebuild under target/ meanwhile changes nothing

cat > "$work/walk_gdb.py" <<'PY'
import gdb, os, json, time, bisect

MODE = os.environ['WALK_MODE']          # map: the targets | cover: which run | walk: every hit
IN, OUT = os.environ['WALK_IN'], os.environ['WALK_OUT']
ROOT = os.environ['WALK_ROOT']
DEPTH = int(os.environ.get('WALK_DEPTH', '64'))
CRATES = os.environ.get('WALK_CRATES', 'all').split()
for c in ('set pagination off', 'set confirm off', 'set print thread-events off',
          'handle SIGUSR1 stop print nopass', 'handle SIGPIPE nostop noprint pass'):
    gdb.execute(c)


def rel(sal):
    st = sal.symtab if sal is not None else None
    if st is None:
        return None
    f = st.filename
    if f.startswith(ROOT + '/'):
        f = f[len(ROOT) + 1:]
    return f if f.startswith('crates/') else None


def watched(sal):
    f = rel(sal)
    return f if f is not None and (CRATES == ['all'] or f.split('/')[1] in CRATES) else None


if MODE == 'map':
    seen = set()
    with open(OUT, 'w') as out:
        for line in open(IN):
            a, _, name = line.rstrip('\n').split(' ', 2)
            a = int(a, 16)
            if a in seen:
                continue
            seen.add(a)
            file = rel(gdb.find_pc_line(a))
            if file is None:
                continue
            blk = gdb.block_for_pc(a)
            fn = blk.function.name if blk is not None and blk.function is not None else ''
            is_async = int('async_fn' in fn or 'async_block' in fn)
            out.write('%x\t%s\t%d\t%s\n' % (a, file, is_async, name))
    raise SystemExit

PID = gdb.selected_inferior().pid
EXE = os.path.realpath('/proc/%d/exe' % PID)
OFF = 0
with open(EXE, 'rb') as fh:
    if fh.read(18)[16:18] == b'\x03\x00':  # ET_DYN: a PIE, nm's addresses are offsets from where it is loaded
        for m in open('/proc/%d/maps' % PID):
            p = m.split()
            if len(p) >= 6 and os.path.realpath(p[5]) == EXE and int(p[2], 16) == 0:
                OFF = int(p[0].split('-')[0], 16)
                break
RA = 8 if 'x86-64' in gdb.selected_frame().architecture().name() else 0  # the CFA at entry: sp + return address

events, stacks, hits = [], {}, []
NAMES = []
for line in open(os.environ['WALK_NAMES']):
    a, _, is_async, name = line.rstrip('\n').split('\t', 3)
    NAMES.append((int(a, 16) + OFF, name + (' [async]' if is_async == '1' else '')))
NAMES.sort()
STARTS = [a for a, _ in NAMES]


def name_at(pc):  # the watched function holding pc (its symbol's name; gdb's own names are short ones)
    i = bisect.bisect_right(STARTS, pc) - 1
    return NAMES[i][1] if i >= 0 else '?'


def on_hit(bp):
    t = gdb.selected_thread().num
    if DEPTH == 0:
        events.append(('call', t, bp.file, bp.fname, ''))
        return
    # A watched frame is (CFA, file, name); stacks[t] is thread t's watched frames at its last event, innermost first.
    f = gdb.newest_frame()
    key0 = (int(f.read_register('sp')) + RA, bp.file, bp.fname)
    prev = stacks.get(t, [])
    idx = {k[:2]: i for i, k in enumerate(prev)}
    chain, j = [], None
    g, d = f.older(), 0
    while g is not None and d < DEPTH:
        d += 1
        try:
            file = watched(g.find_sal())
            o = g.older()
        except gdb.error:
            break
        if file is not None:
            k = (int(o.read_register('sp')) if o is not None else 0, file)
            if k in idx:
                j = idx[k]
                break
            chain.append(k + (name_at(g.pc()),))
        g = o
    if j is not None:
        stack = [key0] + chain + prev[j:]
        root = stack[-1][2]
        for k in prev[1:j + 1]:
            events.append(('ret', t, k[1], k[2], root))
        for k in reversed(chain):
            events.append(('unseen', t, k[1], k[2], root))
    else:
        stack = [key0] + chain
        root = stack[-1][2]
    stacks[t] = stack
    events.append(('call', t, bp.file, bp.fname, root))


class Bp(gdb.Breakpoint):
    def stop(self):
        if MODE == 'cover':
            hits.append(self)
            return True
        try:
            on_hit(self)
        except Exception as e:  # a tracer error is recorded, never stops the server
            events.append(('error', 0, '', repr(e), ''))
        return False


t0, n = time.time(), 0
for line in open(IN):
    a, file, is_async, name = line.rstrip('\n').split('\t', 3)
    bp = Bp('*0x%x' % (int(a, 16) + OFF), internal=True)
    bp.silent = True
    bp.file, bp.addr = file, a
    bp.fname = name + (' [async]' if is_async == '1' else '')
    n += 1
gdb.execute('set breakpoint always-inserted on')
open(os.environ['WALK_READY'], 'w').write('%d breakpoints in %.1fs\n' % (n, time.time() - t0))
covered = []
while True:
    hits.clear()
    try:
        gdb.execute('continue')
    except gdb.error:
        break
    if MODE != 'cover' or not hits:
        break  # SIGUSR1: the answer is back
    for bp in hits:
        covered.append(bp.addr)
        bp.delete()
with open(OUT, 'w') as out:
    if MODE == 'cover':
        out.write(''.join(a + '\n' for a in covered))
    else:
        for e in events:
            out.write(json.dumps(e, ensure_ascii=False) + '\n')
gdb.execute('detach')
PY

# The targets: every function symbol whose entry is in a watched crate's file.
nm -C --defined-only "$work/wenshu" | awk '($2 ~ /^[tTwW]$/) && /wenshu/' > "$work/syms"
WALK_MODE=map WALK_IN="$work/syms" WALK_OUT="$work/all" WALK_ROOT="$root" \
    gdb -batch -nx -x "$work/walk_gdb.py" "$work/wenshu" > "$work/map.log" 2>&1
python3 - "$work/all" "$work/targets" "$crates" <<'PY'
import sys
src, dst, crates = sys.argv[1], sys.argv[2], sys.argv[3].split()
keep = [l for l in open(src) if crates == ['all'] or l.split('\t')[1].split('/')[1] in crates]
open(dst, 'w').writelines(keep)
if not keep:
    sys.exit('no function of %s found in the binary (a debug build with line tables?)' % ' '.join(crates))
PY

body="$(python3 -c 'import json, sys; print(json.dumps({"question": sys.argv[1]}, ensure_ascii=False))' "$question")"

# One fresh server, gdb attached in MODE on the targets IN, one question; gdb writes OUT, the answer goes to ANSWER.
run_once() {
    local mode="$1" in="$2" out="$3" answer="$4" dir url pid gdbpid i
    dir="$(mktemp -d "$work/server.XXXX")"
    printf '[server]\nrequest_timeout_secs = 3600\n' > "$dir/wenshu.toml"
    env -u WENSHU_CONFIG -u WENSHU_LLM_BASE_URL -u WENSHU_LLM_MODEL -u WENSHU_LLM_API_KEY WENSHU_DATA_DIR="$dir" \
        "$work/wenshu" serve --config "$dir/wenshu.toml" --host 127.0.0.1 --port 0 --today "$today" \
        > "$dir/out" 2> "$dir/err" &
    pid=$!
    pids+=("$pid")
    for i in $(seq 600); do grep -q "serving on" "$dir/out" && break; sleep 0.1; done
    url="$(grep -o 'http://[0-9.:]*' "$dir/out" | head -1)"
    [ -n "$url" ] || { echo "the server did not start:" >&2; cat "$dir/err" >&2; exit 1; }
    WALK_MODE="$mode" WALK_IN="$in" WALK_OUT="$out" WALK_ROOT="$root" WALK_DEPTH="$depth" WALK_CRATES="$crates" \
        WALK_NAMES="$work/targets" WALK_READY="$dir/ready" \
        gdb -batch -nx -p "$pid" -x "$work/walk_gdb.py" > "$dir/gdb.log" 2>&1 &
    gdbpid=$!
    for i in $(seq 3000); do [ -f "$dir/ready" ] && break; kill -0 "$gdbpid" 2>/dev/null || break; sleep 0.1; done
    [ -f "$dir/ready" ] || { echo "gdb did not attach:" >&2; tail -5 "$dir/gdb.log" >&2; exit 1; }
    curl -s -XPOST "$url/api/ask" -H 'content-type: application/json' --data-binary "$body" > "$answer"
    kill -USR1 "$pid"
    wait "$gdbpid" || true
    kill "$pid" 2>/dev/null || true
    [ -f "$out" ] || { echo "gdb wrote nothing:" >&2; tail -5 "$dir/gdb.log" >&2; exit 1; }
}

run_once cover "$work/targets" "$work/covered" "$work/answer1.json"
python3 - "$work/targets" "$work/covered" "$work/hit" <<'PY'
import sys
covered = set(l.strip() for l in open(sys.argv[2]))
open(sys.argv[3], 'w').writelines(l for l in open(sys.argv[1]) if l.split('\t')[0] in covered)
PY
run_once walk "$work/hit" "$work/events" "$work/answer.json"
[ -z "${WALK_KEEP:-}" ] || { mkdir -p "$WALK_KEEP"; cp "$work/events" "$work/hit" "$work/answer.json" "$WALK_KEEP/"; }
end_s=$(date +%s.%N)

python3 - "$work/events" "$work/answer.json" "$work/answer1.json" "$question" "$crates" "$depth" \
    "$(wc -l < "$work/targets")" "$(wc -l < "$work/hit")" "$start_s" "$end_s" "${WALK_SKIP:-}" <<'PY'
import json, re, sys
from collections import Counter
(events_path, answer_path, answer1_path, question, crates, depth, n_targets, n_hit, t0, t1, skip) = sys.argv[1:]
events = [json.loads(l) for l in open(events_path)]
if skip:
    events = [e for e in events if not re.search(skip, e[3])]
errors = [e for e in events if e[0] == 'error']


def answer_line(path):
    try:
        a = json.load(open(path))
    except Exception:
        return open(path).read()[:120]
    if 'error' in a:
        return 'error %s' % a['error'].get('code')
    return '%s, tool %s' % (a.get('kind'), a.get('tool'))


def short(f):
    return f[len('crates/'):] if f.startswith('crates/') else f


def stops_of(seq):
    stops = []  # [file, events, thread of its first event]
    for f, t, _ in seq:
        if stops and stops[-1][0] == f:
            stops[-1][1] += 1
        else:
            stops.append([f, 1, t])
    return stops


def figures(seq):
    stops = stops_of(seq)
    seen, returns, again = set(), 0, Counter()
    for f, _, _ in stops:
        if f in seen:
            returns += 1
            again[f] += 1
        seen.add(f)
    return stops, seen, returns, again


def report(title, seq):
    stops, seen, returns, again = figures(seq)
    print('%s: %d events, %d stops, %d files, %d returns' % (title, len(seq), len(stops), len(seen), returns))
    if again:
        print('  re-entered: ' + ', '.join('%s %d' % (short(f), n) for f, n in again.most_common()))
    if len(groups) > 1:
        for g in sorted(groups, key=lambda g: -groups[g]):
            st, se, re, ag = figures([e for e in seq if e[2] == g])
            print('  %s alone: %d events, %d stops, %d files, %d returns%s' % (
                g, sum(n for _, n, _ in st), len(st), len(se), re,
                ('; re-entered: ' + ', '.join('%s %d' % (short(f), n) for f, n in ag.most_common(5))) if ag else ''))
    print('  stops in order (thread: file (events)):')
    for i, (f, n, t) in enumerate(stops, 1):
        print('  %4d  %s: %s (%d events)%s' % (i, t, short(f), n, '  <- return' if f in {g for g, _, _ in stops[:i - 1]} else ''))


calls = [e for e in events if e[0] == 'call']
threads = Counter(e[1] for e in calls)
# The events' groups: the outermost watched frame read off the stack (about the task), else the thread.
group = (lambda e: 'task under %s' % e[4]) if depth != '0' else (lambda e: 'thread %s' % e[1])
groups = Counter(group(e) for e in calls)
print('question: %s' % question)
print('answer: %s (first run: %s)' % (answer_line(answer_path), answer_line(answer1_path)))
print('watched: %s%s; %s functions in them, %s ran; %d calls on %d threads (%s); %.0f s in all' % (
    crates, ' (leaving out %s)' % skip if skip else '', n_targets, n_hit, len(calls), len(threads),
    ', '.join('%s: %d' % kv for kv in sorted(threads.items())), float(t1) - float(t0)))
if errors:
    print('tracer errors: %d (first: %s)' % (len(errors), errors[0][3]))
print()
report('call walk (function entries only)', [(e[2], e[1], group(e)) for e in calls])
if depth != '0':
    print()
    report('walk with returns (entries, plus returns read off the stack)',
           [(e[2], e[1], group(e)) for e in events if e[0] in ('call', 'ret', 'unseen')])
PY
