#!/usr/bin/env python3
"""Writes the seed corpora tests/fuzz/corpus/<harness>/ (run from the top
folder: python3 tests/fuzz/seeds.py).  Valid examples come from the repo's
own files (lab/arms.tsv, data/quiet.tsv, data/guesses.tsv ...) and from the
tests' hand-made inputs; every bad-input case of the tests that reach these
parsers is copied here as one file (its test named in the file's name).
Regression inputs found by fuzzing are added by hand as regress-*; this
script does not remove them.  Rerunning it rewrites the same files."""
import os, struct

C = 'tests/fuzz/corpus'

def put(h, name, data):
    os.makedirs(f'{C}/{h}', exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(f'{C}/{h}/{name}', 'wb') as f:
        f.write(data)

def many(h, prefix, items):
    for i, d in enumerate(items):
        put(h, f'{prefix}-{i:02d}', d)

def read(p):
    with open(p, 'rb') as f:
        return f.read()

# ---------------------------------------------------------------- http
def post(body, extra=''):
    return f'POST /score HTTP/1.1\r\nContent-Length: {len(body.encode())}\r\n{extra}\r\n{body}'
ok = '{"id":5,"row":10}'
many('http', 'valid', [
    post(ok), post('{"row":10,"id":5}'), post(' { "id" : 1 ,\n "row" : 4294967295 } '),
    'GET /health HTTP/1.1\r\n\r\n', 'GET /calls HTTP/1.1\r\n\r\n',
    post(ok, 'X-Budget-Ns: 25000000\r\nConnection: keep-alive\r\n') + post(ok, 'Connection: close\r\n'),
    'GET /health HTTP/1.0\r\n\r\n' + 'GET /calls HTTP/1.1\r\nconnection: Close\r\n\r\n',
    post(ok, 'x-budget-ns: 0\r\nHost: 127.0.0.1\r\n'),
    ok,
])
# test_service.c: malformed_http_is_400, bad_bodies_are_400_with_a_reason,
# body_over_64k_is_413, half_request_does_not_delay_others
many('http', 'test_service-malformed', [
    'GARBAGE\r\n\r\n', 'POST /score SPDY/3\r\n\r\n', 'POST /score HTTP/1.1\r\nContent-Length: x\r\n\r\n',
    'POST /score HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n', 'GET /nothing HTTP/1.1\r\n\r\n',
    'POST /score HTTP/1.1\r\nContent-Length: 70000\r\n\r\n',
    'POST /score HTTP/1.1\r\nContent-Length: 16\r\n\r\n{"id":',
    'POST /score HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}',
    'POST /score HTTP/1.1\r\nX-Budget-Ns: 99999999999999999999\r\nContent-Length: 0\r\n\r\n',
    'POST /score HTTP/1.1\r\n\r\n', 'POST /score HTTP/1.1\r\nno colon\r\n\r\n',
])
many('http', 'test_service-body', [post(b) for b in [
    'not json', '{"id":1,"row":', '{"id":1}', '{"row":1}', '{"id":1,"row":-4}', '{"id":1,"row":2.5}',
    '{"id":1,"row":2,"x":3}', '{"id":1,"row":99999999}', '{"id":1,"id":2,"row":3}', '{"id":4294967296,"row":1}',
    '{"id":1,"row":2} x', '{"i\\"d":1}', '{}']])

# ---------------------------------------------------------------- wire
REQ, ANS, CLK = 0x504b4c4b, 0x534e414b, 0x4b434c4b
def req(row, j, att, budget, tag, magic=REQ):
    return struct.pack('<IIIHHqQ', magic, row, j, att, 0, budget, tag)
def ans(status, tag, magic=ANS):
    return struct.pack('<IIQ6f', magic, status, tag, 1.0, 2.5, -3.0, 0.0, 1e-3, 42.0)
def clock(t0, magic=CLK):
    return struct.pack('<IIq16x', magic, 0, t0)
many('wire', 'valid', [
    clock(123456789) + req(10, 0, 0, 0, 1) + req(11, 1, 1, 25000000, 2),
    req(4294967295, 7, 2, -1, 2**64 - 1),
    b''.join(ans(s, s + 1) for s in range(5)),
])
# test_store.c bad_magic_closes_only_that_connection; a clock frame at t0 <= 0; unknown status
many('wire', 'test_store-bad', [
    req(1, 1, 0, 0, 1, magic=0xdeadbeef), clock(0), clock(-5), clock(2**62),
    ans(5, 1), ans(0, 1, magic=REQ), req(1, 1, 0, 0, 1)[:31],
])

# ---------------------------------------------------------------- arms
put('arms', 'valid-arms.tsv', read('lab/arms.tsv'))
put('arms', 'valid-demo_arms.tsv', read('lab/demo/demo_arms.tsv'))
HEAD = ('name\twait\trate\tpolicy\ttry_ms\ttries\tpause\tpause_ms\thedge_ms\tlimit_ms\t'
        'deadline_ms\treserve_ms\tdown\tstandin\tfault\tbrk_fails\tbrk_window\tbrk_share\t'
        'brk_cool_ms\tbrk_probes\tstore2\tinflight\tbulkhead\trb_pct\trb_floor\thedge_p\tlimit_pm\thedge2\n')
T = '\t'
z = lambda k: T.join(['0'] * k)
# test_policy.c bad_arms_files_are_named, every case
bad_arms = [
 f"X3-none\tQ\t300\tnone\t0\t1\tnone\t-\t0\t0\t0\t0\t0\t0\tnone\t{z(13)}\n",
 f"X3-none\tH\tfast\tnone\t0\t1\tnone\t-\t0\t0\t0\t0\t0\t0\tnone\t{z(13)}\n",
 "X3-none\tH\t300\tnone\t0\t1\tnone\n",
 f"X3-r2b\tH\t300\tr2b\t25\t3\tfixed\t10\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"X3-d\tH\t300\td\t0\t1\tnone\t-\t0\t0\t0\t0\t1\t1\tnone\t{z(13)}\n",
 f"H3-r5\tH\t300\tr5\t25\t6\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H3-x\tH\t300\tx\t25\t3\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H3-r2\tH\t300\tr2\t0\t3\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H3-hedge\tH\t300\thedge\t25\t2\tnone\t-\t10\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H3-hedge\tH\t300\thedge\t0\t1\tnone\t-\t30\t25\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H3-fb25\tH\t300\tfb25\t25\t1\tfixed\t10\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H3-fb25\tH\t300\tfb25\t20\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H3-t25\tH\t300\tt25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H4-fb25\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"L3-fb25\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H3-dl\tH\t300\tdl\t0\t1\tnone\t-\t0\t0\t25\t25\t0\t1\tnone\t{z(13)}\n",
 f"H3-none\tH\tmax\tnone\t0\t1\tnone\t-\t0\t0\t0\t0\t0\t0\tnone\t{z(13)}\n",
 f"X3-none\tH\t300\tnone\t0\t99999999999999999999\tnone\t-\t0\t0\t0\t0\t0\t0\tnone\t{z(13)}\n",
 "H3-brk-down\tH\t300\tbrk\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown\t5\t0\t0\t250\t0\t0\t0\t0\t0\t0\t0\t0\t0\n",
 "H3-brk-down\tH\t300\tbrk\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown\t5\t0\t50\t250\t3\t0\t0\t0\t0\t0\t0\t0\t0\n",
 "H3-brkw-down\tH\t300\tbrkw\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown\t5\t0\t0\t250\t3\t0\t0\t0\t0\t0\t0\t0\t0\n",
 "H3-brk-down\tH\t300\tbrk\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown\t5\t0\t0\t250\t3\t50\t0\t0\t0\t0\t0\t0\t0\n",
 "H3-bulk-hang\tH\t300\tbulk\t250\t1\tnone\t-\t0\t0\t0\t0\t0\t1\thang\t0\t0\t0\t0\t0\t50\t0\t1\t0\t0\t0\t0\t0\n",
 "H3-fb25\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t10\t10\t0\t0\t0\n",
 "H3-r2\tH\t300\tr2\t25\t3\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t10\t10\t0\t0\t0\n",
 "H3-hedge\tH\t300\thedge\t0\t1\tnone\t-\t0\t25\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t95\t0\t0\n",
 "L3-fbq999\tL\t300\tfbq999\t0\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t999\t0\n",
 "L3-fbq999\tL\t300\tfbq999\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tnone\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t1000\t0\n",
 f"H3-r4x\tH\t300\tr4x\t25\t5\texp\t10,20,40\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H3-r4x\tH\t300\tr4x\t25\t5\texp\t40,10\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 f"H3-r4x\tH\t300\tr4x\t25\t5\texpo\t10,40\t0\t0\t0\t0\t0\t1\tnone\t{z(13)}\n",
 "H3-brk-down\tH\t300\tbrk\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown\t5\t1001\t0\t250\t3\t0\t0\t0\t0\t0\t0\t0\t0\n",
 f"H3-fb25-down\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdwn\t{z(13)}\n",
 f"H3-fb25-down\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown@0.5-1.5\t{z(13)}\n",
 f"H3-fb25-down\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown@0.6-0.4\t{z(13)}\n",
 f"H3-fb25-down\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tdown@1-end\t{z(13)}\n",
 f"H3-fb25-flaky\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\tflaky@0-0.5\t{z(13)}\n",
 f"H3-fb25-down\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\thang\t{z(13)}\n",
 f"H3-fb25\tH\t300\tfb25\t25\t1\tnone\t-\t0\t0\t0\t0\t0\t1\treset\t{z(13)}\n",
]
many('arms', 'test_policy-bad', [HEAD + l for l in bad_arms])

# ---------------------------------------------------------------- rawfmt
# first byte: kind (byte % 9: any, the logs tester service store, machine events, format 4's
# tester service store); bit 7: the rest as is
TCOLS = 'j\trow\tsched_t\tsend_t\tanswer_t\tstatus\tkind\tscore\tconn\twaited'
THEAD = '# lab-raw 3 tester\n' + TCOLS + '\n'
TROW = '0\t0\t100\t110\t300\t200\tL\t0.5\t0\t0\n'
SCOLS = ['req', 'row', 'arrive_t', 'answer_t', 'status', 'kind', 'lookups', 'store'] + \
        [f'a{k}_{c}' for k in range(5) for c in ('start_t', 'end_t', 'out')]
STCOLS = 'req attempt row arrive_t start_t end_t planned_ns budget_ns outcome line busy'.split()
def raw(kindbyte, text, asis=False):
    return bytes([kindbyte | (0x80 if asis else 0)]) + (text.encode() if isinstance(text, str) else text)
service = ('# lab-raw 3 service\n' + '\t'.join(SCOLS) + '\n' +
           '5\t10\t1000\t2000\t200\tL\t1\t1\t1100\t1900\tA' + '\t-\t-\t-' * 4 + '\n' +
           '6\t11\t100\t-\t504\tD\t2\t1\t1200\t25000000\tT\t10\t5\tC' + '\t-\t-\t-' * 3 + '\n' +
           '-\t-\t100\t30\t400\tE\t0\t1' + '\t-\t-\t-' * 5 + '\n')
store = ('# lab-raw 3 store\n' + '\t'.join(STCOLS) + '\n' +
         '5\t0\t10\t1000\t1000\t3000\t2000000\t0\tA\t0\t1\n' +
         '6\t1\t11\t10\t-\t-\t0\t25000000\tD\t3\t16\n')
machine = '# lab-raw 4 machine\nt\tscope\ttotal\tidle\tsteal\tlab\n1000\tA\t200\t150\t0\t40\n0\tM\t100\t60\t0\t40\n1000000000\tA\t200\t190\t1\t5\n'
events = '# lab-raw 4 events\nt\twhat\tconn\ttries\twait_ns\n1000\tL\t0\t0\t0\n500\tF\t0\t1\t1000000\n500\tC\t0\t2\t0\n10\tO\t-1\t0\t0\n'
T4HEAD = '# lab-raw 4 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n'
tester4 = T4HEAD + '41\t2317\t200\tL\t=\t7\t0\n-\t-\t0\tE\t-\t-\t1\n-3\t-\t504\tE\t-\t0\t0\n120\t5003\t200\tK\t0.25\t3\t0\n'
S4COLS = ['req', 'arrive_us', 'answer_us', 'status', 'kind', 'lookups', 'store'] + \
         [f'a{k}_{c}' for k in range(5) for c in ('start_us', 'end_us', 'out')]
service4 = ('# lab-raw 4 service\n' + '\t'.join(S4COLS) + '\n' +
            '0\t76\t43\t200\tL\t1\t1\t0\t61\tA' + '\t-\t-\t-' * 4 + '\n' +
            '-\t5\t7\t400\tE\t0\t1' + '\t-\t-\t-' * 5 + '\n' +
            '2\t30\t-12\t200\tK\t2\t1\t10\t25000\tT\t25020\t-3\tX' + '\t-\t-\t-' * 3 + '\n')
store4 = ('# lab-raw 4 store\nreq\tattempt\tarrive_us\tstart_us\tend_us\tbudget_ns\toutcome\tline\tbusy\n'
          '0\t0\t22\t0\t34\t0\tA\t0\t1\n2\t1\t15\t-\t-\t0\tP\t3\t16\n2\t0\t40\t-\t7\t5000000\tD\t1\t16\n')
many('rawfmt', 'valid4', [raw(6, tester4), raw(7, service4), raw(8, store4), raw(0, tester4), raw(0, store4)])
many('rawfmt', 'bad4', [raw(6, t) for t in [
    T4HEAD + '1\t2\t504\tE\t=\t0\t0\n', T4HEAD + '1\t2\t200\tL\t=\t=\t0\n', T4HEAD + '1\t2\t200\tL\t==\t0\t0\n',
    T4HEAD + '-\t2\t200\tL\t=\t0\t0\n', '# lab-raw 3 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n',
    T4HEAD + '1.5\t2\t200\tL\t=\t0\t0\n']])
many('rawfmt', 'valid', [
    raw(1, THEAD + TROW + '1\t1\t-5\t5\t-\t0\tE\t-\t3\t1\n' + '2\t1\t7\t5\t10\t0\tE\t-\t3\t1\n'),
    raw(0, THEAD + TROW), raw(2, service), raw(3, store), raw(4, machine), raw(5, events), raw(0, events),
])
# test_rawfmt.c bad_first_lines_and_headers, bad_rows_named_by_line_and_column, truncated/plain
bad_raw = [
    '# lab-raw 3 store\nj\n', '# lab-raw 4 tester\n',
    '# lab-raw 1 tester\n' + TCOLS + '\n', '# lab-raw 2 tester\n' + TCOLS + '\n', '', '# lab-raw 3 tester\n',
    '# lab-raw 3 tester\nj\trow\tsend_t\n', '# lab-raw 3 tester\nj\trow\n', '# lab-raw 3 tester\n' + TCOLS + '\textra\n',
    THEAD + TROW + '1\t0\t100\n', THEAD + TROW + TROW + '1\t0\t100\t110\t300\t200\tL\t0.5\t0\t0\t9\n',
    THEAD + '0\t0\tx\t110\t300\t200\tL\t0.5\t0\t0\n', THEAD + '0\t0\t100\t110\t300\t200\tL\tabc\t0\t0\n',
    THEAD + '0\t0\t100\t110\t300\t200\tL\tnan\t0\t0\n', THEAD + '0\t0\t100\t110\t300\t200\tL\t1e39\t0\t0\n',
    THEAD + '0\t+7\t100\t110\t300\t200\tL\t0.5\t0\t0\n', THEAD + '0\t7 \t100\t110\t300\t200\tL\t0.5\t0\t0\n',
    THEAD + TROW + '1\t1\t100\t110\t300\t200\tLK\t0.5\t0\t0\n', THEAD + TROW + '1\t1\t100\t110\t300\t200\tX\t0.5\t0\t0\n',
    THEAD + '0\t\t100\t110\t300\t200\tL\t0.5\t0\t0\n', THEAD + '99999999999999999999\t0\t100\t110\t300\t200\tL\t0.5\t0\t0\n',
    THEAD + '0\t-9223372036854775808\t100\t110\t300\t200\tL\t0.5\t0\t0\n',
    THEAD + '0\t0\t9223372036854775000\t110\t300\t200\tL\t0.5\t0\t0\n1\t0\t1000\t110\t300\t200\tL\t0.5\t0\t0\n',
    THEAD + '0\t0\t-\t110\t300\t200\tL\t0.5\t0\t0\n', THEAD + TROW + '1\t1\t100\t110\t-\t0\tE\t-\t-\t0\n',
    THEAD + TROW + '1\t1\t100\t110\t300\t200\tL\t0.5\t0', THEAD + TROW + '1\t1\t-5\t-\t-\t0\tE\t-\t3\t1\n',
]
many('rawfmt', 'test_rawfmt-bad', [raw(1, t) for t in bad_raw])
import gzip
gz = gzip.compress((THEAD + TROW * 50).encode(), mtime=0)
many('rawfmt', 'test_rawfmt-gzip', [raw(1, (THEAD + TROW).encode(), asis=True), raw(1, gz[:-4], asis=True),
                                   raw(1, gz[:len(gz) // 2], asis=True), raw(1, gz, asis=True)])

# ---------------------------------------------------------------- quiet
put('quiet', 'valid-data_quiet.tsv', read('data/quiet.tsv'))
put('quiet', 'valid-tests_quiet_off.tsv', read('tests/quiet_off.tsv'))
many('quiet', 'test_quiet-bad', [  # test_quiet.c limits_file_checked
    'rule\tlimit\nsteal_run_max\tyes\n', 'rule\tlimit\nsteal_run_max\t2\n', 'rule\tlimit\nloud\t1\n',
    'rule\tlimit\nsteal_run_max\t0.1\n', 'name\tvalue\n',
    read('data/quiet.tsv').decode() + 'steal_run_max\t0.1\n', read('data/quiet.tsv').decode().replace('0.2', 'nan'),
])

# ---------------------------------------------------------------- shop
HDR = 'Invoice,StockCode,Description,Quantity,InvoiceDate,Price,Customer ID,Country\r\n'
GOOD = '489434,85048,GLASS BALL,12,2009-12-01 07:45:00,6.95,13085.0,United Kingdom\r\n'
many('shop', 'valid', [
    HDR + GOOD + 'C489435,22087,"PAPER BUNTING, WHITE",-2,2009-12-01 07:45:00,2.55,,France\r\n'
    + 'A506401,B,Adjust bad debt,1,12/1/2009 07:45,-53594.36,,United Kingdom\n'
    + '489436,85048,"SAY ""HELLO""",1,2009-12-01 07:46:00,1.0,13086,EIRE\n',
    HDR.replace('\r\n', '\n') + GOOD.replace('\r\n', '\n'),
])
many('shop', 'test_shop-bad', [  # test_shop.c rejects_*
    HDR + GOOD + '489435,85048,X,1,2010-13-01 07:45:00,1.0,13085,France\r\n' + GOOD,
    HDR + GOOD + GOOD + '489435,85048,X,1,2010-02-30 07:45:00,1.0,13085,France\r\n',
    HDR + '489435,85048,X,1,12/1/2009 24:06,1.0,13085,France\r\n',
    HDR + GOOD + '489435,85048,X,1,2009-12-01 07:45:00,1.0,United Kingdom\r\n' + GOOD,
    HDR + GOOD + GOOD + '489435,85048,X,1,2009-12-01 07:45:00,1.0,1,UK,9\r\n',
    HDR + GOOD + '489435,85048,X,12a,2009-12-01 07:45:00,1.0,13085,France\r\n',
    HDR + GOOD + '489435,85048,X,1.5,2009-12-01 07:45:00,1.0,13085,France\r\n',
    HDR + GOOD + '489435,85048,X,1,2009-12-01 07:45:00,6.9.5,13085,France\r\n',
    HDR + GOOD + '489435,85048,X,1,2009-12-01 07:45:00,,13085,France\r\n',
    HDR + GOOD + '489435,85048,X,1,2009-12-01 07:45:00,1.0,13085.5,France\r\n',
    HDR + GOOD + '48943,85048,X,1,2009-12-01 07:45:00,1.0,13085,France\r\n',
    HDR + GOOD + 'D489435,85048,X,1,2009-12-01 07:45:00,1.0,13085,France\r\n',
    'Invoice,StockCode,Description,Quantity,InvoiceDate,Price,CustomerID,Country\r\n' + GOOD, '',
    HDR + GOOD + '489435,85048,"OPEN QUOTE,1,2009-12-01 07:45:00,1.0,13085,France\r\n' + GOOD + GOOD,
    HDR + GOOD + '489435,85048,"A"B,1,2009-12-01 07:45:00,1.0,13085,France\r\n',
    HDR + GOOD + '489435,85048,"TWO\r\nLINES",1,2009-12-01 07:45:00,1.0,13085,France\r\n'
    + '489436,85048,X,1,2009-12-01 07:45:00,1.0,13085,France\r\n' + '489437,85048,X,x,2009-12-01 07:45:00,1.0,13085,France\r\n',
])

# ---------------------------------------------------------------- prediction
PRED = ('{"format": "lab-prediction 1", "profile": "quick", "seconds": 4, "rounds": [1, 2, 3, 4, 5],\n'
 ' "runs": {"H4-r2-r1": {"p99_ms": 26.5, "standin_share": 0.125, "lookups_per_request": 1.016,\n'
 '                         "flooded": true, "flood_from_s": 2},\n'
 '          "H4-r2-r2": {"p99_ms": null, "standin_share": 0, "lookups_per_request": 1,\n'
 '                         "flooded": false, "flood_from_s": null}},\n'
 ' "odds": [{"claim": "flood", "arm": "H4-r2", "event": "flooded", "seconds": 30, "seeds": "1-1000",\n'
 '           "sim_k": 290, "sim_n": 1000},\n'
 '          {"claim": "slow", "arm": "H3-none", "event": "p99_over_1s", "seconds": 30, "sim_k": 500, "sim_n": 1000}],\n'
 ' "sizing": []}\n')
put('prediction', 'valid-test_collectflood', PRED)
many('prediction', 'test_collectflood-bad', [  # malformed_prediction_is_named_and_nothing_written
 '{"format": "lab-prediction 1", "runs": {', '{"format": "lab-prediction 2", "runs": {}, "odds": []}',
 '{"format": "lab-prediction 1", "runs": {}}',
 '{"format": "lab-prediction 1", "runs": {"H4-r2-r1": {"p99_ms": 1, "standin_share": 0, "lookups_per_request": 1, "flooded": "yes", "flood_from_s": null}}, "odds": []}',
 '{"format": "lab-prediction 1", "runs": {"H4-r2-r1": {"p99_ms": 1, "standin_share": 0, "lookups_per_request": 1, "flooded": true, "flood_from_s": null}}, "odds": []}',
 '{"format": "lab-prediction 1", "runs": {"H4-r2-r1": {"p99_ms": "26", "standin_share": 0, "lookups_per_request": 1, "flooded": false, "flood_from_s": null}}, "odds": []}',
 '{"format": "lab-prediction 1", "runs": {}, "odds": [{"claim": "flood", "arm": "H4-r2", "event": "flooded", "seconds": 30, "sim_k": 1001, "sim_n": 1000}]}',
 '{"format": "lab-prediction 1", "runs": {}, "odds": [{"claim": "flood", "arm": "H4-r2", "event": "slow", "seconds": 30, "sim_k": 1, "sim_n": 1000}]}',
 '{"format": "lab-prediction 1", "runs": {}, "odds": [{"claim": "flood", "arm": "H4-r2", "event": "flooded", "sim_k": 1, "sim_n": 1000}]}',
 '{"format": "lab-prediction 1", "runs": {}, "odds": [], "format": "lab-prediction 1"}',
])

# test_collecttwin.c: format 2's noise and twin (a valid one, and the faults)
RUN2 = '"seconds": 2, "p99_ms": 2, "standin_share": 0.2, "lookups_per_request": 1, "flooded": false, "flood_from_s": null'
NOISE = '"noise": {"path": "data/noise.tsv", "sha256": "ab12", "replicas": 10}'
def twin2(noise, twin):
    return ('{"format": "lab-prediction 2", ' + noise + '"runs": {"H4-r2-r1": {' + RUN2 + ', "twin": ' + twin
            + '}}, "odds": [], "sizing": []}')
put('prediction', 'valid-test_collecttwin', twin2(NOISE + ', ', '{"replicas": 10, "flooded": 3, "p_flood": 0.3, "standin_share_q": [0, 0.25, 0.5]}'))
many('prediction', 'test_collecttwin-bad', [  # malformed_twin_is_named_and_nothing_written
 twin2(NOISE + ', ', '{"replicas": 0, "flooded": 0, "p_flood": 0, "standin_share_q": [0, 0, 0]}'),
 twin2(NOISE + ', ', '{"replicas": 10, "flooded": 11, "p_flood": 1, "standin_share_q": [0, 0, 0]}'),
 twin2(NOISE + ', ', '{"replicas": 10, "flooded": 3, "p_flood": 0.4, "standin_share_q": [0, 0, 0]}'),
 twin2(NOISE + ', ', '{"replicas": 10, "flooded": 3, "p_flood": 0.3, "standin_share_q": [0.2, 0.1, 0.3]}'),
 twin2(NOISE + ', ', '[1, 2]'),
 twin2('"noise": null, ', '{"replicas": 10, "flooded": 3, "p_flood": 0.3, "standin_share_q": [0, 0, 0]}'),
 twin2('"noise": {"path": "data/noise.tsv", "sha256": "ab"}, ', 'null'),
])

# ---------------------------------------------------------------- runjson
T0 = 1000000000000
SPEC1 = '{"tries":1,"brk_cool_ms":0,"rb_pct":0,"rb_floor":0,"inflight":0,"store2":0}'
SPEC2 = '{"tries":3,"brk_cool_ms":250,"rb_pct":10,"rb_floor":10,"inflight":16,"store2":50}'
NOFAULT = '{"name":"none","spec":"none","window":null}'
def rj(fault, stores=1, spec=SPEC1, arm='H3-fb25'):
    return f'{{"arm":"{arm}","round":1,"seconds":6,"t0_ns":{T0},"fault":{fault},"stores":{stores},"arm_spec":{spec}}}'
many('runjson', 'valid', [
    rj(NOFAULT), rj(NOFAULT, 2, SPEC2, 'H3-pool'),
    rj('{"name":"down","spec":"down","from_ns":2000000000,"to_ns":4000000000}', arm='H3-r2-down'),
    rj('{"name":"never","spec":"never","from_ns":2000000000,"to_ns":null}', arm='H3-fb25-never'),
    rj('{"name":"flaky","spec":"flaky","window":null}', arm='H3-fb25-flaky'),
])
pre = f'{{"arm":"H3-r2-down","round":1,"seconds":6,"t0_ns":{T0}'
many('runjson', 'test_collect-bad', [pre + f + '}' for f in [  # bad_fault_in_run_json_is_named
    '', ',"fault":{"name":"sideways"}', ',"fault":{"name":"down@0.2-0.5","from_ns":1,"to_ns":2}',
    ',"fault":{"name":"down","window":null}', ',"fault":{"name":"down","from_ns":5,"to_ns":5}',
    ',"fault":{"name":"flaky","from_ns":5,"to_ns":9}']] + [
    rj(NOFAULT, 2, SPEC1), rj(NOFAULT, 1, SPEC2), rj(NOFAULT, 1, SPEC1.replace('"tries":1', '"tries":-1')),
    rj(NOFAULT, 1, SPEC1.replace('"tries":1', '"tries":1.5')), '{"arm":"x","round":"1","seconds":6,"t0_ns":1}'])

# ---------------------------------------------------------------- guess
put('guess', 'valid-data_guesses.tsv', read('data/guesses.tsv'))
put('guess', 'valid-comparisons.tsv', read('pipeline/comparisons.tsv'))
GH = 'id\tguess\tpredicate\n'
many('guess', 'bad', [GH + 'G1\tx\t' + p + '\n' for p in [
    'most H3-none.p99_ms > 1', 'every H3-none.p99 > 1', 'every H3-none.p99_ms => 1', 'every H3-none.p99_ms > one',
    'every H3-none.p99_ms > 1 * H3-fb25', 'every H3-none.p99_ms > 1 x H3-fb25.p99_ms', 'apart H3-r2 H3-r2bj p99',
    'close H3-t25 H3-fb25', 'every .p99_ms > 1', 'every H3-none.p99_ms > 1 and', ' and ', '',
    'every H3-none.p99_ms > 1e999', 'median Z-capacity.answers_per_s >= 25000 and median Z-capacity.answers_per_s <= 45000 and any H4-r2.standin_share > 0.3 and every H3-t10.p99_ms <= 12 and every H3-t25.p99_ms <= 27 and every H3-t50.p99_ms <= 52 and every H3-t100.p99_ms <= 102 and every H3-t25.p99_ms <= 27 and every H3-t25.p99_ms <= 27 and every H3-t25.p99_ms <= 27',
]] + ['id\tguess\n', GH + 'G1\tonly two\n', GH + 'G1\ta\tb\tc\n', 'a\tb\tfigure\tnote\nH3-t25\tH3-fb25\tp99_ms\n'])

# ---------------------------------------------------------------- redact
many('redact', 'test_collect', [  # redactor_removes_what_it_claims_and_keeps_the_rest
    'connect to 10.1.2.3 port 443 failed', 'from 172.31.0.5:22', 'peer 2600:1f18:abcd::12 refused',
    'host ip-10-0-0-1.ec2.internal up', 'GET https://ec2.us-east-1.amazonaws.com/ x', 'account 123456789012 denied',
    'instance i-0abc12345def67890 and sg-12345678', 'subnet-0a1b2c3d4e5f6a7b8 vpc-1234abcd',
    'key AKIAABCDEFGHIJKLMNOP here', 'token=abcdef1234567890xyz end', 'mail ops@example.com now',
    'listening on 127.0.0.1:8080 and ::1', 'bind 0.0.0.0:2024', 'kernel 6.18.44 at 12:34:56, 1234567 ns, 0.570016972',
    'systemd[1]: Started cron.service.', 'pid 4242 took 1234567890123 ns'])
many('redact', 'test_mask', [  # log_lines_masked_before_redaction
    'FATAL: postgres://lab:s3cretpw@127.0.0.1:5432/lab refused', 'dsn postgres://lab:s3cretpw@localhost/lab',
    'conn host=127.0.0.1 password=s3cretpw user=lab'])

# ---------------------------------------------------------------- answer
# byte 0: the request number the body must carry
def answer(j, status, body, extra=''):
    return bytes([j]) + (f'HTTP/1.1 {status} X\r\nContent-Length: {len(body)}\r\n{extra}\r\n{body}').encode()
many('answer', 'valid', [
    answer(7, 200, '{"id":7,"score":0.281206131,"kind":"live"}'),
    answer(8, 200, '{"id": 8, "score": 1e-05, "kind": "last_known"}', 'Content-Type: application/json\r\n'),
    answer(9, 200, '{"id":9,"score":0.5,"kind":"default"}') + answer(9, 504, '{"id":9,"error":"timeout"}')[1:],
    answer(10, 504, '{"id":10,"error":"timeout"}', 'Connection: close\r\n'),
    answer(11, 400, '{"error":"bad row"}'),
])
many('answer', 'test_answer-bad', [bytes([13]) + t.encode() for t in [  # test_answer.c, every malformed case
    'HTTP/1.1 200 OK\r\nContent-Length: 4\r\n', 'HTTP/1.1 20x OK\r\nContent-Length: 4\r\n\r\n',
    'HTTP/1.1 2000 OK\r\nContent-Length: 4\r\n\r\n', 'HTTP/1.1 099 OK\r\nContent-Length: 4\r\n\r\n',
    'HTTP/1.1 200 OK\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n',
    'HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n',
    'HTTP/1.1 504 Gateway Timeout\r\ncontent-length:  7 \r\nConnection: Close\r\n\r\n{"a":1}']] + [
    answer(13, 200, b) for b in ['{"id":12,"score":0.5,"kind":"live"}', '{"score":0.5,"kind":"live"}',
                                 '{"id":13,"score":"x","kind":"live"}', '{"id":13,"score":1e39,"kind":"live"}',
                                 '{"id":13,"score":0.5,"kind":"stale"}', '{"id":13,"score":nan,"kind":"live"}']] + [
    answer(13, 504, '{"id":99999999999999999999}')])
