#!/usr/bin/env python3
"""Turns bench/run's JSON lines into docs/performance.md: medians over rounds, ratios measured in
the same run, and the pass/miss of each target. Usage: report.py OUT_DIR DOC_PATH (machine facts
come from BENCH_* environment variables set by bench/run)."""
import json
import os
import statistics
import sys

out_dir, doc_path = sys.argv[1], sys.argv[2]

# The run's facts (BENCH_* from bench/run) are kept next to the results, so the document can be
# regenerated later from the same JSON lines: report.py OUT_DIR DOC_PATH.
info_path = os.path.join(out_dir, 'run-info.json')
if os.environ.get('BENCH_MODE'):
    with open(info_path, 'w') as f:
        json.dump({k: v for k, v in os.environ.items() if k.startswith('BENCH_')}, f, indent=1)
elif os.path.exists(info_path):
    with open(info_path) as f:
        os.environ.update(json.load(f))


def load(name):
    path = os.path.join(out_dir, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip().startswith('{')]


stdio, sock, broker = load('stdio.jsonl'), load('socket.jsonl'), load('broker.jsonl')
http_rows = load('http.jsonl')


def med(values):
    values = [v for v in values if v is not None and v >= 0]
    return statistics.median(values) if values else None


def spread(rows, server, path):
    """min and max of a warm-phase value over the rounds (None when absent)."""
    vals = []
    for r in rows:
        if r['kind'] != 'warm' or r['server'] != server:
            continue
        v = r
        for k in path:
            v = v.get(k) if isinstance(v, dict) else None
        if v is not None and v >= 0:
            vals.append(v)
    return (min(vals), max(vals), len(vals)) if vals else None


def cold(rows, server, key):
    return med([r[key] for r in rows if r['kind'] == 'cold' and r['server'] == server])


def warm(rows, server, path):
    vals = []
    for r in rows:
        if r['kind'] != 'warm' or r['server'] != server:
            continue
        v = r
        for k in path:
            v = v.get(k) if isinstance(v, dict) else None
        vals.append(v)
    return med(vals)


def paired(rows, a, b, path):
    """Median over rounds of a's value / b's value in the same round (interleaved: the two ran
    next to each other, so what the machine did to both cancels)."""
    by = {}
    for r in rows:
        if r['kind'] != 'warm' or r['server'] not in (a, b):
            continue
        v = r
        for k in path:
            v = v.get(k) if isinstance(v, dict) else None
        by.setdefault(r.get('round'), {})[r['server']] = v
    return med([ratio(p[a], p[b]) for p in by.values() if p.get(a) and p.get(b)])


def us(v):
    if v is None:
        return 'n/a'
    if v >= 10000:
        return f'{v / 1000:.1f} ms'
    if v >= 1000:
        return f'{v / 1000:.2f} ms'
    return f'{v:.1f} µs'


def num(v, unit=''):
    return 'n/a' if v is None else f'{v:,.0f}{unit}'


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def rfmt(r):
    if r is None:
        return 'n/a'
    return f'{r:.2f}×' if r >= 0.1 else f'1/{1 / r:.1f}' if r > 0 else '0'


targets = []  # (name, measured text, target text, pass)


def target(name, value, limit, kind, shown=None, limit_text=None):
    """kind: 'le' (value <= limit), 'lt' or 'ge'; limit_text: how the limit is written."""
    if value is None:
        ok = None
    elif kind == 'le':
        ok = value <= limit
    elif kind == 'lt':
        ok = value < limit
    else:
        ok = value >= limit
    sign = {'le': '≤ ', 'lt': '< ', 'ge': '≥ '}[kind]
    targets.append((name, shown if shown is not None else rfmt(value),
                    sign + (limit_text or (rfmt(limit) if shown is None else us(limit))), ok))


S = ['fabric-broker', 'ts-sdk', 'floor']
lines = []
w = lines.append
mode = os.environ.get('BENCH_MODE', 'full')

w('# Performance')
w('')
w('Side-by-side figures for `fabric-broker` (stdio MCP server), a reference MCP server on the '
  'official TypeScript SDK (`bench/ts-reference`, same tool list, same Fabric endpoint) and a bare '
  'native floor (`bench/floor/echo_floor.cpp`: canned answers, no JSON parsing). Written by '
  '`bench/run`; numbers are from one run on a shared machine, so **every target is a ratio '
  'measured in the same run**, servers interleaved A B C A B C …, medians over rounds reported.')
w('')
if mode != 'full':
    w(f'> **This is a `{mode}` run** (small iteration counts): indicative only.')
    w('')
w('## Machine and run')
w('')
w('| | |')
w('|---|---|')
w(f"| CPU | {os.environ.get('BENCH_CPU_MODEL', '?')} |")
w(f"| cores | {os.environ.get('BENCH_CORES', '?')} |")
w(f"| kernel | {os.environ.get('BENCH_KERNEL', '?')} |")
w(f"| Qt | {os.environ.get('BENCH_QT', '?')} |")
w(f"| Node | {os.environ.get('BENCH_NODE', '?')}, @modelcontextprotocol/sdk {os.environ.get('BENCH_SDK', '?')} |")
w(f"| load average (1/5/15 min) | {os.environ.get('BENCH_LOAD_START', '?')} at start, "
  f"{os.environ.get('BENCH_LOAD_END', '?')} at the end (the machine is shared with other builds) |")
w(f"| source | {os.environ.get('BENCH_SOURCE', '?')} |")
w(f"| fabric-broker binary | {os.environ.get('BENCH_BUILD_TYPE', '?')}, {os.environ.get('BENCH_BINARY', '?')} |")
w(f"| sizes | {os.environ.get('BENCH_SIZES', '?')} |")
w(f"| duration | {os.environ.get('BENCH_ELAPSED', '?')} s |")
w('')
w(f"Reproduce: `{os.environ.get('BENCH_COMMAND', 'bench/run')}` (needs node; `npm ci --prefix "
  'bench/ts-reference` is run when its node_modules are missing). `bench/run --quick` is a smaller '
  'run; CI only runs `bench/run --smoke` (CTest `bench_side_by_side_smoke`, LABELS bench), which '
  'asserts nothing about speed.')
w('')

# ------------------------------------------------------------------ stdio
w('## stdio: fabric-broker vs TypeScript SDK vs floor, and relayed to the running app')
w('')
w('"relayed" is what MCP clients spawn while the app runs: `fabric-broker --stdio`, the launcher '
  '(no Qt), which hands its stdin and stdout to the running app over the per-user socket and then '
  'only waits; the app (a headless `--listen` instance with the same settings) serves the session '
  'on the client\'s own pipes. Its CPU rows are the launcher\'s (the app does the work); its RSS is '
  'the launcher\'s.')
w('')
w('| measure | fabric-broker | TS SDK | floor | relayed | ours/TS | ours/floor | relayed/floor |')
w('|---|---|---|---|---|---|---|---|')


def row(label, vals, fmt=us):
    o, t, f, r = vals
    w(f'| {label} | {fmt(o)} | {fmt(t)} | {fmt(f)} | {fmt(r)} | {rfmt(ratio(o, t))} | '
      f'{rfmt(ratio(o, f))} | {rfmt(ratio(r, f))} |')


S4 = S + ['relayed']
c_init = [cold(stdio, s, 'spawn_to_initialize_us') for s in S4]
c_call = [cold(stdio, s, 'first_call_us') for s in S4]
c_eof = [cold(stdio, s, 'eof_to_exit_us') for s in S4]
row('spawn → initialize result', c_init)
row('first tools/call fabric_list_metros in a fresh process', c_call)
row('stdin EOF → exit', c_eof)
seq = {}
for m, label in [('ping', 'ping'), ('tools_list', 'tools/list'), ('tools_call_metros', 'tools/call fabric_list_metros')]:
    for q in ['p50_us', 'p90_us', 'p99_us']:
        vals = [warm(stdio, s, [m, q]) for s in S4]
        seq[(m, q)] = vals
        row(f'{label} round trip {q[:3]}', vals)
    cpu = [warm(stdio, s, [m, 'server_cpu_us_per_req']) for s in S4]
    seq[(m, 'cpu')] = cpu
    row(f'{label}: server CPU per request', cpu)
thr = [warm(stdio, s, ['pipelined_ping_per_s']) for s in S4]
row('pipelined ping throughput (req/s)', thr, lambda v: num(v, '/s'))
pcpu = [warm(stdio, s, ['pipelined_server_cpu_us_per_req']) for s in S4]
row('pipelined ping: server CPU per request', pcpu)
hwm = [warm(stdio, s, ['vmhwm_kb']) for s in S4]
row('peak RSS (VmHWM, after the whole session)', hwm, lambda v: 'n/a' if v is None else f'{v / 1024:.1f} MiB')
w('')
w('Ratios below 0.1 are written 1/N. CPU per request is the server process\'s utime+stime delta '
  '(/proc/PID/stat, 10 ms ticks) over the measured loop divided by its requests; for tools/call '
  'it excludes the Fabric sandbox (a separate process).')
w('')


def diff(a, b):
    return None if a is None or b is None else a - b


target('startup (spawn → initialize) ours/TS', ratio(c_init[0], c_init[1]), 1 / 15, 'le', limit_text='1/15')
target('stdin EOF → exit ours/TS', ratio(c_eof[0], c_eof[1]), 1 / 20, 'le', limit_text='1/20')
target('ping p50 ours/floor', ratio(seq[('ping', 'p50_us')][0], seq[('ping', 'p50_us')][2]), 2, 'le')
target('tools/list p50 ours/floor', ratio(seq[('tools_list', 'p50_us')][0], seq[('tools_list', 'p50_us')][2]), 1.5, 'le')
target('tools/call fabric_list_metros p50 ours/TS',
       ratio(seq[('tools_call_metros', 'p50_us')][0], seq[('tools_call_metros', 'p50_us')][1]), 1 / 4, 'le', limit_text='1/4')
target('pipelined ping throughput ours/TS', ratio(thr[0], thr[1]), 8, 'ge')
target('peak RSS ours/TS', ratio(hwm[0], hwm[1]), 1 / 6, 'le', limit_text='1/6')
target('issue 3, stdio: ping p50 ours/bare echo', ratio(seq[('ping', 'p50_us')][0], seq[('ping', 'p50_us')][2]), 2, 'le')
target('issue 3, stdio: tools/list p50 ours/bare echo', ratio(seq[('tools_list', 'p50_us')][0], seq[('tools_list', 'p50_us')][2]), 2, 'le')
target('issue 3, stdio: pipelined throughput ours/bare echo', ratio(thr[0], thr[2]), 1 / 3, 'ge', limit_text='1/3')
target('issue 35: spawn → initialize, relayed/floor', ratio(c_init[3], c_init[2]), 1.5, 'le')
target('issue 35: relay\'s added ping round trip p50 (relayed − fabric-broker)',
       diff(seq[('ping', 'p50_us')][3], seq[('ping', 'p50_us')][0]), 10, 'le',
       shown=us(diff(seq[('ping', 'p50_us')][3], seq[('ping', 'p50_us')][0])))
target('issue 35: relay peak RSS (MiB)', None if hwm[3] is None else hwm[3] / 1024, 8, 'le',
       shown='n/a' if hwm[3] is None else f'{hwm[3] / 1024:.1f} MiB', limit_text='8 MiB')
target('issue 35: tools/call fabric_list_metros server CPU ours/TS',
       ratio(seq[('tools_call_metros', 'cpu')][0], seq[('tools_call_metros', 'cpu')][1]), 1 / 4, 'le', limit_text='1/4')
target('issue 35: tools/call fabric_list_metros p50 ours/TS',
       ratio(seq[('tools_call_metros', 'p50_us')][0], seq[('tools_call_metros', 'p50_us')][1]), 0.5, 'le')
target('issue 35: pipelined throughput ours/floor', ratio(thr[0], thr[2]), 0.75, 'ge')

# ------------------------------------------------------------------ socket
w('## Local socket: fabric-broker --listen vs a bare socket echo')
w('')
w('| measure | fabric-broker | socket echo | ours/echo |')
w('|---|---|---|---|')
SS = ['fabric-broker', 'socket-echo']


def srow(label, vals, fmt=us):
    o, e = vals
    w(f'| {label} | {fmt(o)} | {fmt(e)} | {rfmt(ratio(o, e))} |')


s_conn = [cold(sock, s, 'spawn_to_initialize_us') for s in SS]
srow('spawn → listening → initialize result', s_conn)
sseq = {}
for m, label in [('ping', 'ping'), ('tools_list', 'tools/list')]:
    for q in ['p50_us', 'p90_us', 'p99_us']:
        vals = [warm(sock, s, [m, q]) for s in SS]
        sseq[(m, q)] = vals
        srow(f'{label} round trip {q[:3]}', vals)
    srow(f'{label}: server CPU per request', [warm(sock, s, [m, 'server_cpu_us_per_req']) for s in SS])
sthr = [warm(sock, s, ['pipelined_ping_per_s']) for s in SS]
srow('pipelined ping throughput (req/s)', sthr, lambda v: num(v, '/s'))
srow('pipelined ping: server CPU per request', [warm(sock, s, ['pipelined_server_cpu_us_per_req']) for s in SS])
w('')
target('issue 3, socket: ping p50 ours/bare echo', ratio(sseq[('ping', 'p50_us')][0], sseq[('ping', 'p50_us')][1]), 2, 'le')
target('issue 3, socket: tools/list p50 ours/bare echo', ratio(sseq[('tools_list', 'p50_us')][0], sseq[('tools_list', 'p50_us')][1]), 2, 'le')
target('issue 3, socket: pipelined throughput ours/bare echo', ratio(sthr[0], sthr[1]), 1 / 3, 'ge', limit_text='1/3')

# ------------------------------------------------------------------ http
w('## Streamable HTTP: fabric-broker --http vs the TypeScript SDK\'s HTTP server')
w('')
w('Both on 127.0.0.1 with the same tools and Fabric endpoint: `fabric-broker --headless --http '
  '127.0.0.1:PORT` and `bench/ts-reference/http-server.mjs` (the SDK\'s '
  '`StreamableHTTPServerTransport`, one per session, JSON responses (fabric-broker answers a '
  '`tools/call` from a client that accepts `text/event-stream`, as this one does, as an event '
  'stream: its catalog-call figures include that framing), its DNS-rebinding '
  'protection, the same bearer check and body bound). One 2025-06-18 session per round; '
  'sequential POSTs on one keep-alive connection; throughput = pings over '
  f"{next((r.get('connections') for r in http_rows), '?')} keep-alive connections with one "
  'request in flight on each (HTTP/1.1 clients do not pipeline).')
w('')
w('| measure | fabric-broker | TS SDK | ours/TS |')
w('|---|---|---|---|')
HS = ['fabric-broker', 'ts-sdk']


def hrow(label, vals, fmt=us):
    o, t = vals
    w(f'| {label} | {fmt(o)} | {fmt(t)} | {rfmt(ratio(o, t))} |')


hseq = {}
for m, label in [('ping', 'ping'), ('tools_list', 'tools/list'), ('tools_call_metros', 'tools/call fabric_list_metros')]:
    for q in ['p50_us', 'p90_us', 'p99_us']:
        vals = [warm(http_rows, s, [m, q]) for s in HS]
        hseq[(m, q)] = vals
        hrow(f'{label} round trip {q[:3]}', vals)
    hrow(f'{label}: server CPU per request', [warm(http_rows, s, [m, 'server_cpu_us_per_req']) for s in HS])
hthr = [warm(http_rows, s, ['concurrent_ping_per_s']) for s in HS]
hrow('concurrent ping throughput (req/s)', hthr, lambda v: num(v, '/s'))
hrow('concurrent ping: server CPU per request', [warm(http_rows, s, ['concurrent_server_cpu_us_per_req']) for s in HS])
hrow('peak RSS (VmHWM)', [warm(http_rows, s, ['vmhwm_kb']) for s in HS], lambda v: num(v, ' kB'))
w('')
# The spread over the rounds (each round: a fresh session, servers interleaved), so a median is
# read beside how far the rounds were apart on this (shared) machine.
w('Spread over the rounds (min – max of the per-round values; the table above gives medians):')
w('')
w('| measure | fabric-broker | TS SDK |')
w('|---|---|---|')
for path, label, fmt in [(['ping', 'p50_us'], 'ping p50', us), (['tools_list', 'p50_us'], 'tools/list p50', us),
                         (['tools_call_metros', 'p50_us'], 'tools/call fabric_list_metros p50', us),
                         (['concurrent_ping_per_s'], 'concurrent ping throughput', lambda v: num(v, '/s'))]:
    cells = []
    for srv in HS:
        sp = spread(http_rows, srv, path)
        cells.append('n/a' if sp is None else f'{fmt(sp[0])} – {fmt(sp[1])} ({sp[2]} rounds)')
    w(f'| {label} | {cells[0]} | {cells[1]} |')
w('')
for m, label in [('ping', 'ping'), ('tools_list', 'tools/list'), ('tools_call_metros', 'catalog call')]:
    target(f'issue 18, HTTP: {label} p50 ours/TS SDK', ratio(hseq[(m, 'p50_us')][0], hseq[(m, 'p50_us')][1]), 0.5, 'le')
target('issue 18, HTTP: throughput ours/TS SDK', ratio(hthr[0], hthr[1]), 4, 'ge')

# ------------------------------------------------------------------ observability
obs = load('observability.jsonl')
if obs:
    w('## Observability: the read call with OTLP export off and on')
    w('')
    w('The same server twice, interleaved: without telemetry, and exporting every span and the '
      'metrics over OTLP/HTTP to a loopback receiver (`bench/otlp-sink.py`, one thread that reads '
      'and discards: it shares the two cores with the client and the server; spans batched every '
      '200 ms or 512 spans, metrics every second). More rounds than elsewhere (the `observability` '
      'count in the sizes above), medians over them. Issue 38: the read call\'s overhead with '
      'export on stays within 5% of export off.')
    w('')
    w('| measure | export off | export on | on/off |')
    w('|---|---|---|---|')
    for m, label in [('ping', 'ping'), ('tools_call_metros', 'tools/call fabric_list_metros')]:
        for q in ['p50_us', 'p90_us']:
            off, on = warm(obs, 'export-off', [m, q]), warm(obs, 'export-on', [m, q])
            w(f'| {label} {q[:3]} | {us(off)} | {us(on)} | {rfmt(ratio(on, off))} |')
    off_cpu = warm(obs, 'export-off', ['tools_call_metros', 'server_cpu_us_per_req'])
    on_cpu = warm(obs, 'export-on', ['tools_call_metros', 'server_cpu_us_per_req'])
    w(f'| tools/call fabric_list_metros server CPU | {us(off_cpu)} | {us(on_cpu)} | {rfmt(ratio(on_cpu, off_cpu))} |')
    pair = paired(obs, 'export-on', 'export-off', ['tools_call_metros', 'p50_us'])
    w('')
    w(f'Per round (each export-on round next to its export-off round), the median of the '
      f'on/off ratios of the tools/call p50 is {rfmt(pair)}: the target is read from it, since a '
      f'shared machine slows whole stretches of rounds, both servers alike.')
    sink = os.path.join(out_dir, 'otlp-sink.count')
    if os.path.exists(sink):
        reqs, nbytes = open(sink).read().split()
        w('')
        w(f'The receiver got {int(reqs):,} OTLP requests ({int(nbytes):,} bytes) during the run.')
    w('')
    target('issue 38: tools/call fabric_list_metros p50 export on/off (median of the rounds\' ratios)',
           pair, 1.05, 'le')

# ------------------------------------------------------------------ broker
w('## Broker: propose and confirm')
w('')
bs = [r for r in broker if r['kind'] == 'broker']
cyc = next((r for r in broker if r['kind'] == 'cycles'), None)
if bs:
    w('Method: the sandbox runs with zero latency in its own process. Each `fabric_propose_change` '
      'round trip is interleaved with the *equivalent direct HTTP request* to the same sandbox, '
      'sent by the benchmark client over a keep-alive connection with the same headers and the '
      'exact bytes the broker sent (captured from the sandbox\'s request log): the dry run for '
      '`network_create`; the dry run and the price search in parallel on two connections (as the '
      'broker does) for `connection_create`. Overhead = propose − direct, reported as percentiles '
      'of the per-pair differences. Confirm is timed from the call to its result; it includes one '
      'elicitation round trip through the client (answered at once) and is paired with a direct '
      'real create of another connection. The broker writes its audit trail with one write + '
      '`fdatasync` per record, synchronously, so the figures are given twice: audit file on tmpfs '
      '(the broker\'s own work) and on the machine\'s disk (as shipped; the disk is shared with '
      'other builds, so this column mostly measures the disk).')
    w('')
    w('| measure (p50 / p90 / p99) | ' + ' | '.join(b.get('label', '') for b in bs) + ' |')
    w('|---|' + '---|' * len(bs))
    for k, label in [('propose_network', 'propose network_create (full round trip)'),
                     ('direct_network_dry_run', 'direct dry run (sandbox)'),
                     ('propose_network_minus_direct', '**propose overhead excluding Fabric time** (network_create)'),
                     ('propose_connection', 'propose connection_create (full round trip)'),
                     ('direct_connection_dry_run_and_price', 'direct dry run ‖ price search (sandbox)'),
                     ('propose_connection_minus_direct', '**propose overhead excluding Fabric time** (connection_create)'),
                     ('confirm', 'confirm (full round trip, incl. elicitation)'),
                     ('direct_create', 'direct real create (sandbox)'),
                     ('confirm_minus_direct', '**confirm overhead excluding Fabric time**'),
                     ('tools_call_metros', 'tools/call fabric_list_metros (same session)'),
                     ('direct_metros_get', 'direct GET /fabric/v4/metros (sandbox)'),
                     ('metros_minus_direct', '**fabric_list_metros overhead excluding Fabric time**'),
                     ('tools_call_spec_read', 'tools/call fabric_get_metro_by_code (a spec read tool)'),
                     ('direct_spec_read_get', 'direct GET /fabric/v4/metros/SV (sandbox)'),
                     ('spec_read_minus_direct', '**spec read tool overhead excluding Fabric time**')]:
        w(f'| {label} | ' + ' | '.join(f"{us(b[k]['p50_us'])} / {us(b[k]['p90_us'])} / {us(b[k]['p99_us'])}" if k in b else 'n/a' for b in bs) + ' |')
    w('| server CPU per propose (network / connection) | ' + ' | '.join(
        f"{us(b['propose_network']['server_cpu_us_per_req'])} / {us(b['propose_connection']['server_cpu_us_per_req'])}" for b in bs) + ' |')
    w('| proposals per second (network_create, 8 in flight, incl. the dry run) | ' + ' | '.join(
        f"{num(b['proposals_per_s_pipelined8'])}/s" for b in bs) + ' |')
    w('| proposals per second, sequential (1 / p50) | ' + ' | '.join(
        f"{num(1e6 / b['propose_network']['p50_us'] if b['propose_network']['p50_us'] else None)}/s" for b in bs) + ' |')
    w('')
    for b in bs:
        over = max(b['propose_network_minus_direct']['p50_us'], b['propose_connection_minus_direct']['p50_us'])
        target(f"propose overhead excluding Fabric time p50, worse of network/connection ({b.get('label', '')})",
               over, 1000, 'lt', shown=us(over))
if cyc:
    rss = cyc['vmrss_kb']
    w(f"Memory over {cyc['cycles']:,} propose/expire cycles (`EQUINIX_MCP_PROPOSAL_TTL_MS={cyc.get('ttl_ms', '?')}`, "
      f"network_create, 8 in flight, {num(cyc['proposals_per_s'])}/s), VmRSS sampled every {cyc['sample_every']:,} cycles:")
    w('')
    w('| cycles | ' + ' | '.join(f'{i * cyc["sample_every"]:,}' for i in range(len(rss))) + ' |')
    w('|---|' + '---|' * len(rss))
    w('| VmRSS | ' + ' | '.join(f'{v / 1024:.1f} MiB' for v in rss) + ' |')
    w('')
    if len(rss) >= 3:
        # Flat: the second half grows by less than 5 % over the first sample after warm-up.
        base = rss[1]
        growth = (rss[-1] - base) / base
        w(f'Growth from the first sample after warm-up to the last: {growth * 100:+.1f} %.')
        w('')
        targets.append(('memory flat over propose/expire cycles (growth after warm-up)',
                        f'{growth * 100:+.1f} %', '< +5 %', growth < 0.05))

# ------------------------------------------------------------------ toolsets
sizes = load('toolsets.jsonl')
if sizes:
    w('## tools/list per toolset')
    w('')
    w("What serving a toolset costs an agent's context: the bytes of tools/list (compact JSON, as "
      "sent) and an estimate of its tokens (4 bytes per token).")
    w('')
    w('| toolset | tools | tools/list bytes | ~tokens |')
    w('|---|---|---|---|')
    for r in sizes:
        w(f"| `{r['toolset']}` | {r['tools']} | {r['bytes']:,} | {r['tokens_est']:,} |")
    w('')

# ------------------------------------------------------------------ desktop
w('## Desktop')
w('')
desk = load('desktop.jsonl')
launches = [r['launch_to_window_us'] for r in desk if r['kind'] == 'desktop_launch']
idle = next((r for r in desk if r['kind'] == 'desktop_idle'), None)
if launches or idle:
    w('The desktop app (GUI build) on a private Xvfb display, Fabric = the same sandbox process.')
    w('')
    w('| measure | value |')
    w('|---|---|')
    if launches:
        w(f'| launch → main window shown (median of {len(launches)}; polled with xdotool, ~5-10 ms resolution) | '
          f'{us(med(launches))} (min {us(min(launches))}, max {us(max(launches))}) |')
    if idle:
        w(f"| CPU of the idle app with {idle['proposals']} live countdowns over {idle['seconds']:.0f} s | "
          f"{idle['cpu_percent']:.2f} % of one core ({us(idle['cpu_us'])} CPU in total) |")
        w(f"| VmRSS of the app after that | {idle['vmrss_kb'] / 1024:.1f} MiB |")
    w('')
if os.environ.get('BENCH_DESKTOP'):
    w(f"Desktop figures: {os.environ.get('BENCH_DESKTOP')}.")
    w('')
elif not (launches or idle):
    w('Desktop figures: not measured.')
    w('')

# ------------------------------------------------------------------ targets
w('## Targets')
w('')
w('| target | measured | target | |')
w('|---|---|---|---|')
for name, shown, lim, ok in targets:
    w(f"| {name} | {shown} | {lim} | {'pass' if ok else ('n/a' if ok is None else '**miss**')} |")
w('')

os.makedirs(os.path.dirname(os.path.abspath(doc_path)), exist_ok=True)
notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'performance-notes.md')
if os.path.exists(notes):
    with open(notes) as f:
        lines.append(f.read().rstrip('\n'))
        lines.append('')
with open(doc_path, 'w') as f:
    f.write('\n'.join(lines))
for name, shown, lim, ok in targets:
    print(f"{'PASS' if ok else ('N/A ' if ok is None else 'MISS')}  {name}: {shown} (target {lim})")
